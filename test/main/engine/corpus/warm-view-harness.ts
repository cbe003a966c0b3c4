// Random root histories for the warm corpus view's tests: a small JSONL root changed by one operation at a time
// (create, append, title change, delete, rename, damage, flat files, new projects, a vanished root), and the
// discovery answers a warm and a cold side give for it, as comparable JSON.
import { mkdir, rename, rm, truncate, writeFile, cp } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { artifactPathFor } from '../../../../src/io/artifact-path.js';
import type { SessionEvent, SessionHeader } from '../../../../src/protocol/events.js';
import type { Compression } from '../../../../src/protocol/storage-paths.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import type { Candidate, ReferenceTarget } from '../../../../src/main/engine/reference/reference-types.js';
import type { SessionListReport } from '../../../../src/main/engine/corpus/session-query.js';
import { EventSequence, sessionHeader, BASE_TIME } from '../store/store-test-builders.js';
import { CorpusView, type CorpusViewOptions } from '../../../../src/main/engine/corpus/corpus-view.js';
import { InMemoryLiveRegistry } from '../../../../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../../../../src/main/engine/corpus/session-query.js';
import { WarmDiscovery } from '../../../../src/main/engine/corpus/warm-discovery.js';
import { SessionReferenceService } from '../../../../src/main/engine/reference/session-reference-service.js';
import { asSessionId } from '../../../../src/protocol/events.js';

/** The discovery face both sides offer. */
export interface DiscoverySide {
  listSessionsReport(): Promise<SessionListReport>;
  listCandidates(agent: ReferenceTarget, query: string, limit: number): Promise<Candidate[]>;
}

/** The target agent of every comparison (its cwd is one of the generated projects). */
export const TARGET: ReferenceTarget = { id: 'target-agent', session: { header: { cwd: '/w/alpha' } } };

/** Queries compared after every step: empty, one letter, a title word, an id prefix, a cwd part, no match. */
export const QUERIES = ['', 'a', 'topic', 's-1', 'beta', 'zzz-none'];

const CWDS = ['/w/alpha', '/w/beta', '/w/gamma', undefined] as const;

/** One random operation; `pick` chooses among the existing sessions (modulo their number). */
export type Operation =
  | { readonly kind: 'create'; readonly cwd: number; readonly titled: boolean; readonly createdAt: number }
  | {
      readonly kind: 'append' | 'title' | 'delete' | 'rename' | 'corrupt' | 'truncate' | 'directory' | 'copy' | 'attach' | 'detach';
      readonly pick: number;
    }
  | { readonly kind: 'flat' | 'moveProject'; readonly cwd: number }
  | { readonly kind: 'removeRoot' };

/** The operation generator: creations are frequent so histories have sessions to change. */
export const operationArbitrary: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('create' as const), cwd: fc.nat(3), titled: fc.boolean(), createdAt: fc.nat(4) }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constantFrom('append' as const, 'title' as const), pick: fc.nat(20) }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constantFrom(
        'delete' as const,
        'rename' as const,
        'corrupt' as const,
        'truncate' as const,
        'directory' as const,
        'copy' as const,
        'attach' as const,
        'detach' as const,
      ),
      pick: fc.nat(20),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('flat' as const, 'moveProject' as const), cwd: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('removeRoot' as const) }) },
);

interface ModelSession {
  readonly header: SessionHeader;
  events: SessionEvent[];
}

/** What a live attach needs from the harness. */
export interface LiveSink {
  attach(session: { header: SessionHeader; events: readonly SessionEvent[] }): void;
  detach(id: string): void;
}

/** A root and the sessions written into it, changed one {@link Operation} at a time. */
export class RandomRoot {
  readonly sessions: ModelSession[] = [];
  #next = 0;

  private constructor(
    readonly root: string,
    readonly store: JsonlSessionStore,
  ) {}

  /** A writer store over `root` (no title index: it only writes). */
  static async open(root: string, compression: Compression): Promise<RandomRoot> {
    return new RandomRoot(root, await JsonlSessionStore.open({ root, compression, titleIndex: false }));
  }

  #artifact(session: ModelSession): string {
    return artifactPathFor(this.store.config, session.header.id, session.header.cwd);
  }

  #pick(pick: number): ModelSession | undefined {
    return this.sessions.length === 0 ? undefined : this.sessions[pick % this.sessions.length];
  }

  /** Applies one operation. Failures of the writer (a damaged or vanished log) are part of the history, not errors. */
  async apply(operation: Operation, live: readonly LiveSink[]): Promise<void> {
    try {
      await this.#apply(operation, live);
    } catch {
      // An append to a deleted or damaged log fails: the root simply stays as it is.
    }
  }

  async #apply(operation: Operation, live: readonly LiveSink[]): Promise<void> {
    switch (operation.kind) {
      case 'create': {
        const id = `s-${this.#next}`;
        this.#next += 1;
        const header = sessionHeader(id, CWDS[operation.cwd], { createdAt: BASE_TIME + operation.createdAt * 1000 });
        const seq = new EventSequence();
        const events = [seq.turnStart(1), seq.userMessage(`question ${id} about topic`), seq.turnEnd(1)];
        if (operation.titled) events.push(seq.sessionTitle(`Topic ${id} first`, [1]));
        await this.store.create(header, events);
        this.sessions.push({ header, events });
        return;
      }
      case 'append':
      case 'title': {
        const session = this.#pick(operation.pick);
        if (session === undefined) return;
        const seq = new EventSequence();
        seq.advance(session.events.length);
        const batch =
          operation.kind === 'title'
            ? [seq.sessionTitle(`Renamed ${session.header.id} ${session.events.length}`, [1])]
            : [seq.turnStart(9), seq.userMessage('more about alpha'), seq.turnEnd(9)];
        await this.store.append(session.header, batch);
        session.events = [...session.events, ...batch];
        return;
      }
      case 'delete': {
        const session = this.#pick(operation.pick);
        if (session !== undefined) await rm(dirname(this.#artifact(session)), { recursive: true, force: true });
        return;
      }
      case 'rename': {
        const session = this.#pick(operation.pick);
        if (session !== undefined) await rename(dirname(this.#artifact(session)), `${dirname(this.#artifact(session))}-moved`);
        return;
      }
      case 'corrupt': {
        const session = this.#pick(operation.pick);
        if (session !== undefined) await writeFile(this.#artifact(session), 'not a header\n');
        return;
      }
      case 'truncate': {
        const session = this.#pick(operation.pick);
        if (session !== undefined) await truncate(this.#artifact(session), 0);
        return;
      }
      case 'directory': {
        const session = this.#pick(operation.pick);
        if (session === undefined) return;
        await rm(this.#artifact(session), { force: true });
        await mkdir(this.#artifact(session));
        return;
      }
      case 'copy': {
        const session = this.#pick(operation.pick);
        if (session === undefined) return;
        const from = dirname(this.#artifact(session));
        await cp(from, join(this.root, 'copied-project', `copy-${this.#next}`), { recursive: true });
        this.#next += 1;
        return;
      }
      case 'attach': {
        const session = this.#pick(operation.pick);
        if (session !== undefined) for (const sink of live) sink.attach({ header: session.header, events: session.events });
        return;
      }
      case 'detach': {
        const session = this.#pick(operation.pick);
        if (session !== undefined) for (const sink of live) sink.detach(session.header.id);
        return;
      }
      case 'flat': {
        const project = join(this.root, `-w-flat${operation.cwd}`);
        await mkdir(project, { recursive: true });
        await writeFile(join(project, `flat-${this.#next}.jsonl`), '{}\n');
        this.#next += 1;
        return;
      }
      case 'moveProject': {
        const session = this.sessions.find((entry) => entry.header.cwd === CWDS[operation.cwd]);
        if (session === undefined) return;
        const project = dirname(dirname(this.#artifact(session)));
        await rename(project, `${project}-moved${this.#next}`);
        this.#next += 1;
        return;
      }
      case 'removeRoot':
        await rm(this.root, { recursive: true, force: true });
        return;
      default:
        throw new Error(`unknown operation ${JSON.stringify(operation)}`);
    }
  }
}

/** Everything a side answers, as JSON; a rejection as its name, code and message. */
export async function answers(side: DiscoverySide): Promise<string[]> {
  const out: string[] = [await settle(() => side.listSessionsReport())];
  for (const query of QUERIES) out.push(await settle(() => side.listCandidates(TARGET, query, 1000)));
  return out;
}

async function settle(run: () => Promise<unknown>): Promise<string> {
  try {
    return JSON.stringify(await run());
  } catch (error) {
    const { name, message, code } = error as { name?: unknown; message?: unknown; code?: unknown };
    return JSON.stringify({ rejected: { name, code, message } });
  }
}

/** A side built from the parts, so a test can choose the view's options (dropped notifications, strategy). */
export interface ManualSide extends DiscoverySide, LiveSink {
  readonly view: CorpusView | undefined;
  close(): Promise<void>;
}

/**
 * The cold side (no view, no title index: every call lists and fully inspects) or a warm side over a view with
 * `viewOptions`.
 */
export async function manualSide(
  root: string,
  compression: Compression,
  cacheDirectory: string,
  viewOptions?: Omit<CorpusViewOptions, 'config'>,
): Promise<ManualSide> {
  const store = await JsonlSessionStore.open({ root, compression, cacheDirectory, titleIndex: viewOptions !== undefined });
  const registry = new InMemoryLiveRegistry();
  const cold = new SessionQuery({ registry, storage: store });
  const view = viewOptions === undefined ? undefined : new CorpusView({ config: store.config, ...viewOptions });
  const warm = view === undefined ? undefined : new WarmDiscovery({ store, registry, view, cold });
  const service = new SessionReferenceService({
    sessionQuery:
      warm === undefined
        ? cold
        : {
            listSessions: async (signal) => (await warm.discoveryReport(signal)).records,
            readSurface: (id, signal) => cold.readSurface(id, signal),
            readTitleSnapshots: (ids, signal) => warm.readTitleSnapshots(ids, signal),
          },
  });
  return {
    view,
    listSessionsReport: () => (warm ?? cold).listSessionsReport(),
    listCandidates: (agent, query, limit) => service.listCandidates(agent, query, limit),
    attach: (session) => registry.attach(session),
    detach: (id) => {
      registry.detach(asSessionId(id));
    },
    close: async () => {
      await view?.close();
      await store.settleTitleIndex();
    },
  };
}
