/**
 * The wired background publisher killed with SIGKILL at random points (issue 29: "a publisher killed at any point
 * loses nothing committed and leaves no half batch"). One root — the dsh fixture sessions and enough generated ones
 * for several batches of the publisher's default size — changes between rounds (turns appended with a new title,
 * mtimes touched, sessions added and removed, all from a seeded stream); each round a child process builds an engine
 * with the postgres corpus index, which publishes in the background from its start, and is killed after a seeded
 * delay (or a seeded time after its n-th committed batch). The child reaches the server through a proxy that delays
 * every chunk by a millisecond each way (a server across a network), so a batch's transaction stays open long enough
 * for kills to land inside it. After each kill, once the server ended the child's sessions, the database is read
 * directly:
 *
 * - every artifact row, every source row and every artifact's search documents are exactly what an uninterrupted
 *   publish (in this process, into a reference database, after each round's changes) writes for that artifact at that
 *   revision: no row mixes two revisions' header, title, keys or source-cache entry, and no artifact holds documents of
 *   two revisions or of another revision than its own (they are written in its transaction, under its lock);
 * - every artifact (and source) is at its revision before the round or at the root's current one: an artifact
 *   committed earlier and unchanged since is still there at that revision, a removed one is gone or still there;
 * - the artifacts the child wrote are whole batches, in its listing order (a prefix of multiples of the batch size),
 *   its removals all or none and only after every artifact batch, its sources likewise after both;
 * - every batch the child reported as committed before it was killed is in the database.
 *
 * At the end one child publishes to completion; the database then equals, row by row (publication times aside), what
 * a clean publish of the final root into a fresh database gives, and fleet discovery over it answers as one local
 * engine over the root does. Like the other fleet tests it needs a real PostgreSQL (the fleet fixture fails loudly
 * without one); the seed and the round's changes, kill point and reported progress are in every failure message.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { type Socket, connect, createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { artifactPathFor } from '../../../../src/io/artifact-path.js';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { resolveCorpusIndexConfig } from '../../../../src/main/engine/fleet/corpus-index-config.js';
import { DEFAULT_PUBLISH_BATCH_SIZE } from '../../../../src/main/engine/fleet/corpus-publisher.js';
import { DatabaseUrl } from '../../../../src/main/engine/fleet/database-url.js';
import { FleetDatabase } from '../../../../src/main/engine/fleet/fleet-database.js';
import { fleetCandidates } from '../../../../src/main/engine/fleet/fleet-discovery.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { anonymousReader } from '../../../../src/main/engine/reference/reader.js';
import type { SessionHeader } from '../../../../src/protocol/events.js';
import { REPO_ROOT, fixtureSessions, readExpected } from '../../../support/fixtures.js';
import { seededUnit } from '../../../support/seeded-random.js';
import { EventSequence, sessionHeader } from '../store/store-test-builders.js';
import { type CandidateCase, caseOutcomes, targetOf, useFleetFixture } from './fleet-test-fixture.js';

const CASES = readExpected<CandidateCase[]>('candidates.json');
const SESSIONS = fixtureSessions();

/** The seed of every mutation and kill point (printed with every failure). */
const SEED = 0x29_c0de;
/** Killed rounds before the final, uninterrupted one. */
const ROUNDS = 15;
/** Generated sessions beside the fixture's: the first publish is three batches. */
const GENERATED = 140;
/** The publisher's batch size (the wired engine takes the default). */
const BATCH = DEFAULT_PUBLISH_BATCH_SIZE;
/** The host every child publishes as. */
const HOST = 'h';
/** The delay each way between a child and the server (ms): a batch's transaction stays open for a while. */
const LATENCY_MS = 1;

const fleet = useFleetFixture('publisher-sigkill');

/** A generated session: its header and the builder that continues its seqs. */
interface Generated {
  readonly header: SessionHeader;
  readonly log: EventSequence;
  turns: number;
}

/** The root and what changes it: generated sessions through the store, fixture copies by file operations. */
class MutableRoot {
  readonly generated = new Map<string, Generated>();
  #created = 0;

  private constructor(
    readonly root: string,
    readonly store: JsonlSessionStore,
  ) {}

  static async open(root: string): Promise<MutableRoot> {
    return new MutableRoot(root, await JsonlSessionStore.open({ root, compression: 'zstd', titleIndex: false }));
  }

  /** A new generated session with one closed turn and a title. */
  async add(round: number): Promise<void> {
    const index = this.#created++;
    const id = `session-gen-${String(index).padStart(4, '0')}`;
    const header = sessionHeader(id, `/work/generated/project-${index % 7}`, { createdAt: 1_767_000_000_000 + index * 1000 });
    const log = new EventSequence();
    const turn = log.closedTurn(1, `generated prompt ${index}`, ['alpha ', 'beta ', 'gamma']);
    await this.store.create(header, [...turn, log.sessionTitle(`generated ${index} round ${round}`, [turn[2]?.seq ?? 0])]);
    this.generated.set(id, { header, log, turns: 1 });
  }

  /** One more turn and a new title for a generated session (new size, new revision, new title). */
  async append(id: string, round: number): Promise<void> {
    const session = this.generated.get(id);
    if (session === undefined) throw new Error(`not generated: ${id}`);
    session.turns += 1;
    const turn = session.log.closedTurn(session.turns, `round ${round} prompt`, ['more ', 'text ', 'here']);
    await this.store.append(session.header, [...turn, session.log.sessionTitle(`${id} round ${round}`, [turn[2]?.seq ?? 0])]);
  }

  /** The artifact file of a session present in the root. */
  fileOf(id: string): string {
    const session = this.generated.get(id);
    if (session !== undefined) return artifactPathFor(this.store.config, session.header.id, session.header.cwd);
    const fixture = SESSIONS.find((candidate) => candidate.id === id);
    if (fixture === undefined) throw new Error(`unknown session ${id}`);
    return join(this.root, fixture.projectDir, fixture.id, 'session.jsonl.zstd');
  }

  remove(id: string): void {
    const file = this.fileOf(id);
    rmSync(join(file, '..'), { recursive: true });
    this.generated.delete(id);
  }
}

/** An artifact row (publication time aside) or a source row (its entry as hex). */
type Row = Record<string, unknown>;

/** What one database holds of the corpus: per session id, its artifact row, its source row and its documents. */
interface Snapshot {
  readonly artifacts: Map<string, Row>;
  readonly sources: Map<string, Row>;
  /** Per session id: the revision its documents are of, and every document (sorted, as JSON). */
  readonly documents: Map<string, Row>;
}

/** The kinds of rows a snapshot holds. */
const KINDS = ['artifacts', 'sources', 'documents'] as const;

const ARTIFACT_COLUMNS = 'corpus_id, session_id, revision, header_json, created_at, cwd, title_json, id_key, cwd_key, label_key';
const SOURCE_COLUMNS = "corpus_id, session_id, revision, record_key, encode(record, 'hex') AS record";

async function snapshot(database: string): Promise<Snapshot> {
  const [exists] = await fleet.cluster.sql(database, "SELECT to_regclass('sessionctx.sources') IS NOT NULL AS exists");
  if (exists?.['exists'] !== true) return { artifacts: new Map(), sources: new Map(), documents: new Map() };
  const artifacts = await fleet.cluster.sql(
    database,
    `SELECT ${ARTIFACT_COLUMNS} FROM sessionctx.artifacts ORDER BY session_id COLLATE "C"`,
  );
  const sources = await fleet.cluster.sql(database, `SELECT ${SOURCE_COLUMNS} FROM sessionctx.sources ORDER BY session_id COLLATE "C"`);
  const states = await fleet.cluster.sql(
    database,
    'SELECT session_id, revision, include_tools FROM sessionctx.search_sessions ORDER BY session_id COLLATE "C"',
  );
  const docs = await fleet.cluster.sql(
    database,
    'SELECT session_id, seq, ord, role, time, body_json, tokens, token_count, folded FROM sessionctx.documents ORDER BY session_id, seq, ord',
  );
  const documents = new Map<string, Row>();
  for (const state of states) {
    const id = state['session_id'] as string;
    const own = docs.filter((doc) => doc['session_id'] === id).map((doc) => JSON.stringify(doc));
    documents.set(id, { session_id: id, revision: state['revision'], include_tools: state['include_tools'], docs: own });
  }
  return {
    artifacts: new Map(artifacts.map((row) => [row['session_id'] as string, row])),
    sources: new Map(sources.map((row) => [row['session_id'] as string, row])),
    documents,
  };
}

/**
 * Waits until no other backend is connected to `database` (bounded: 30 s): a killed child's sessions have ended, so
 * whatever it sent before it died (a COMMIT still crossing the proxy) is committed or rolled back by now.
 */
async function settled(database: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const [row] = await fleet.cluster.sql(
      'postgres',
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database],
    );
    if (row?.['n'] === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the killed child's sessions on ${database} did not end within 30 s`);
}

const revisionOf = (row: Row | undefined): unknown => row?.['revision'];
const keyOf = (id: string, revision: unknown): string => `${id}\u0000${String(revision)}`;

/** Every row an uninterrupted publish wrote, by session id and revision: what a row at that revision must be. */
class History {
  readonly artifacts = new Map<string, Row>();
  readonly sources = new Map<string, Row>();
  readonly documents = new Map<string, Row>();

  add(state: Snapshot): void {
    for (const kind of KINDS) {
      for (const [id, row] of state[kind]) {
        const key = keyOf(id, row['revision']);
        const known = this[kind].get(key);
        if (known !== undefined) expect(known, `seed ${SEED}: two uninterrupted publishes of ${id} at one revision differ`).toEqual(row);
        this[kind].set(key, row);
      }
    }
  }
}

/**
 * A loopback port in front of the cluster that holds every chunk `ms` before passing it on, each way, and a closed
 * end's close likewise (what was sent before it is delivered first): a server across a network. The bytes are the
 * server's; only their timing changes, so a batch's open transaction lasts long enough for random kills to land in it.
 */
async function latencyProxy(targetPort: number, ms: number): Promise<{ readonly port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on('error', () => undefined);
      from.on('data', (chunk) => setTimeout(() => to.write(chunk), ms));
      from.on('close', () => {
        sockets.delete(from);
        setTimeout(() => to.destroy(), ms);
      });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What a child printed: its fleet events, in order, with the time each arrived. */
interface ChildRun {
  readonly child: ChildProcess;
  readonly events: { readonly kind: string; readonly [key: string]: unknown }[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once an event satisfies `test` (rejects once the child exited without one). */
  until(test: (event: { kind: string; [key: string]: unknown }) => boolean): Promise<void>;
}

/**
 * A child process with an engine over `root` and the postgres corpus index at `url`, publishing as {@link HOST} in
 * the background from its start (and after each change its warm view sees), printing every fleet event as a JSON
 * line. `complete`: it closes its engine and exits once its first publish is committed; otherwise it runs until killed.
 */
function spawnEngine(url: string, root: string, mode: 'complete' | 'run'): ChildRun {
  const dir = mkdtempSync(join(fleet.scratch, 'child-'));
  const file = join(dir, 'engine.mjs');
  const module = (path: string) => JSON.stringify(pathToFileURL(join(REPO_ROOT, 'dist', path)).href);
  writeFileSync(
    file,
    `import { createEngine } from ${module('src/main/engine/assembly/create-engine.js')};
import { resolveCorpusIndexConfig } from ${module('src/main/engine/fleet/corpus-index-config.js')};
const [url, root, mode] = process.argv.slice(2);
const say = (value) => process.stdout.write(JSON.stringify(value) + '\\n');
let published;
const first = new Promise((resolve) => { published = resolve; });
const engine = await createEngine({
  root,
  compression: 'zstd',
  workers: false,
  sourceCache: false,
  corpusIndex: resolveCorpusIndexConfig({ backend: 'postgres', host: ${JSON.stringify(HOST)} }, { SESSIONCTX_DATABASE_URL: url }),
  fleetRetry: { initialDelayMs: 20, maxDelayMs: 200 },
  onFleetEvent: (event) => {
    say(event);
    if (event.kind === 'published') published();
  },
});
say({ kind: 'ready' });
if (mode === 'complete') {
  await first;
  await engine.close();
}
`,
  );
  const child = spawn(process.execPath, [file, url, root, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const events: { kind: string; [key: string]: unknown }[] = [];
  const listeners = new Set<() => void>();
  let pending = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      events.push({ ...(JSON.parse(pending.slice(0, newline)) as { kind: string }), at: Date.now() });
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
    for (const listener of listeners) listener();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    events,
    exited,
    until: (test) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (events.some(test)) {
            listeners.delete(check);
            resolve();
          }
        };
        listeners.add(check);
        check();
        void exited.then(() => {
          check();
          if (listeners.has(check)) reject(new Error('the child exited before the awaited event'));
        });
      }),
  };
}

/** An in-process engine over `root` publishing into the database at `url` (the reference publishes; not killed). */
function referenceEngine(root: string, url: string): Promise<LocalSessionEngine> {
  return createEngine({
    root,
    compression: 'zstd',
    workers: false,
    sourceCache: false,
    corpus: { watch: false },
    corpusIndex: resolveCorpusIndexConfig({ backend: 'postgres', host: HOST }, { SESSIONCTX_DATABASE_URL: url }),
  });
}

/**
 * An uninterrupted publish of `root` as it is now into `database` (in this process): the rows it leaves (each
 * artifact's and source's at the root's current revision) and the publisher's listing order.
 */
async function uninterruptedPublish(root: string, database: string): Promise<{ state: Snapshot; order: string[] }> {
  const engine = await referenceEngine(root, fleet.cluster.url(database));
  try {
    await engine.publishToFleet();
    const order = (await engine.listSessions()).filter((record) => record.persisted).map((record) => record.header.id as string);
    return { state: await snapshot(database), order };
  } finally {
    await engine.close();
  }
}

/** Whether `done` is a whole number of batches of `all` (or all of it) and `all`'s first items. */
/** `promise`, or a rejection naming `what` after `ms` (a stuck child fails the round instead of the test's timeout). */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not within ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** How many batches with progress (artifacts, then sources) a publish from `before` to `current` commits. */
function expectedBatches(before: Snapshot, current: Snapshot, order: readonly string[]): number {
  const stale = (kind: 'artifacts' | 'sources') =>
    order.filter((id) => revisionOf(before[kind].get(id)) !== revisionOf(current[kind].get(id))).length;
  return Math.max(1, Math.ceil(stale('artifacts') / BATCH) + Math.ceil(stale('sources') / BATCH));
}

function wholeBatches(done: readonly string[], all: readonly string[]): boolean {
  return (done.length % BATCH === 0 || done.length === all.length) && done.every((id, index) => all[index] === id);
}

/**
 * Checks what the database holds after a child was killed (or finished) against what it held before (`before`), the
 * root's current state (`current`, an uninterrupted publish's rows) and every such publish's rows (`history`).
 */
function checkAfterKill(
  where: string,
  before: Snapshot,
  after: Snapshot,
  current: Snapshot,
  order: readonly string[],
  history: History,
  events: ChildRun['events'],
): void {
  // Every row is exactly an uninterrupted publish's row at its revision: nothing mixes two revisions.
  for (const kind of KINDS) {
    for (const [id, row] of after[kind]) {
      expect(row, `${where}: the ${kind} row of ${id} is not what an uninterrupted publish writes at its revision`).toEqual(
        history[kind].get(keyOf(id, row['revision'])),
      );
    }
  }
  // Every artifact and source is at its revision before the round or at the current one.
  const ids = new Set([...before.artifacts.keys(), ...after.artifacts.keys(), ...current.artifacts.keys(), ...after.sources.keys()]);
  for (const id of ids) {
    for (const kind of KINDS) {
      const was = revisionOf(before[kind].get(id));
      const now = revisionOf(after[kind].get(id));
      const wanted = revisionOf(current[kind].get(id));
      if (was === wanted) expect(now, `${where}: ${kind} of ${id}, committed before and unchanged since, was lost`).toBe(was);
      else expect([was, wanted], `${where}: ${kind} of ${id} is at a revision of neither the round's start nor the root`).toContain(now);
    }
  }
  // An artifact's documents are of its own revision (committed with it), whatever the kill interrupted.
  for (const [id, row] of after.artifacts) {
    expect(revisionOf(after.documents.get(id)), `${where}: the documents of ${id} are not of its revision`).toBe(row['revision']);
  }
  expect(
    [...after.documents.keys()].filter((id) => !after.artifacts.has(id)),
    `${where}: documents without their artifact`,
  ).toEqual([]);
  // Whole batches, in order: artifacts, then removals (one batch), then sources.
  const changed = order.filter((id) => revisionOf(before.artifacts.get(id)) !== revisionOf(current.artifacts.get(id)));
  const written = changed.filter((id) => revisionOf(after.artifacts.get(id)) === revisionOf(current.artifacts.get(id)));
  expect(wholeBatches(written, changed), `${where}: artifacts written ${written.length} of ${changed.length}: a half batch`).toBe(true);
  const removals = [...before.artifacts.keys()].filter((id) => !current.artifacts.has(id));
  const removed = removals.filter((id) => !after.artifacts.has(id));
  expect([0, removals.length], `${where}: ${removed.length} of ${removals.length} removals: a half batch`).toContain(removed.length);
  if (removed.length > 0) expect(written.length, `${where}: removals committed before every artifact batch`).toBe(changed.length);
  const uncited = order.filter((id) => revisionOf(before.sources.get(id)) !== revisionOf(current.sources.get(id)));
  const cited = uncited.filter((id) => revisionOf(after.sources.get(id)) === revisionOf(current.sources.get(id)));
  expect(wholeBatches(cited, uncited), `${where}: sources written ${cited.length} of ${uncited.length}: a half batch`).toBe(true);
  if (cited.length > 0) {
    expect(written.length, `${where}: sources committed before every artifact batch`).toBe(changed.length);
    expect(removed.length, `${where}: sources committed before the removals`).toBe(removals.length);
  }
  // Every batch the child reported committed (its first publish's progress) is there.
  const firstPublish = events.slice(
    0,
    events.findIndex((event) => event.kind === 'published'),
  );
  const reported = (events.some((event) => event.kind === 'published') ? firstPublish : events).filter(
    (event) => event.kind === 'progress',
  );
  const reportedArtifacts = Math.max(0, ...reported.filter((event) => event.stage === 'artifacts').map((event) => event.done as number));
  const reportedSources = Math.max(0, ...reported.filter((event) => event.stage === 'sources').map((event) => event.done as number));
  expect(written.length, `${where}: a batch reported committed is missing`).toBeGreaterThanOrEqual(reportedArtifacts);
  expect(cited.length, `${where}: a source batch reported committed is missing`).toBeGreaterThanOrEqual(reportedSources);
  if (events.some((event) => event.kind === 'published')) {
    expect([written.length, removed.length, cited.length], `${where}: a publish reported complete is not`).toEqual([
      changed.length,
      removals.length,
      uncited.length,
    ]);
  }
}

/** Seeded changes of the root between rounds: appended turns, touched mtimes, sessions added and removed. */
async function mutate(root: MutableRoot, round: number, random: () => number): Promise<string> {
  const present = (await root.store.list()).map((header) => header.id as string).sort();
  const pick = (share: number) => present.filter(() => random() < share);
  const appended = pick(0.15).filter((id) => root.generated.has(id));
  for (const id of appended) await root.append(id, round);
  const touched = pick(0.1 + random() * 0.5).filter((id) => !appended.includes(id));
  const when = new Date(1_700_000_000_000 + round * 60_000);
  for (const id of touched) utimesSync(root.fileOf(id), when, when);
  const removed = pick(0.03);
  for (const id of removed) root.remove(id);
  const added = Math.floor(random() * 4);
  for (let index = 0; index < added; index += 1) await root.add(round);
  return `appended ${appended.length}, touched ${touched.length}, removed ${removed.length}, added ${added}`;
}

describe('the wired background publisher, killed with SIGKILL at random points', () => {
  it('loses nothing committed and leaves no half batch; a last uninterrupted run equals a clean publish', async () => {
    const random = seededUnit(SEED);
    const dir = fleet.rootOf(SESSIONS.map((_, index) => index));
    const root = await MutableRoot.open(dir);
    for (let index = 0; index < GENERATED; index += 1) await root.add(0);
    const target = await fleet.cluster.createDatabase('killed');
    const reference = await fleet.cluster.createDatabase('reference');
    const proxy = await latencyProxy(fleet.cluster.port, LATENCY_MS);
    const remote = fleet.cluster.url(target).replace(`:${fleet.cluster.port}/`, `:${proxy.port}/`);
    const history = new History();
    /** How long the last child's first publish took from its start (kill delays are drawn over it). */
    let span = 1500;
    let running: ChildRun | undefined;
    try {
      for (let round = 0; round <= ROUNDS; round += 1) {
        const changes = round === 0 ? 'initial root' : await mutate(root, round, random);
        const { state: current, order } = await uninterruptedPublish(dir, reference);
        history.add(current);
        const before = await snapshot(target);
        const last = round === ROUNDS;
        const run = spawnEngine(remote, dir, last ? 'complete' : 'run');
        running = run;
        let plan: string;
        if (last) {
          plan = 'not killed';
          const { code } = await within(60_000, `seed ${SEED}: the last child's publish`, run.exited);
          expect(code, `seed ${SEED}: the last child failed`).toBe(0);
        } else {
          await within(
            30_000,
            `seed ${SEED} round ${round}: the child's engine`,
            run.until((event) => event.kind === 'ready'),
          );
          const started = Date.now();
          if (random() < 0.5) {
            // Anywhere from the engine's start to a while after its publish would have ended.
            const delay = Math.floor(random() * span * 1.2);
            plan = `killed ${delay} ms after ready`;
            await new Promise((resolve) => setTimeout(resolve, delay));
          } else {
            // Right after a committed batch: in the next batch's reads or its open transaction, or before the summary.
            const batches = 1 + Math.floor(random() * expectedBatches(before, current, order));
            const delay = Math.floor(random() * 30);
            plan = `killed ${delay} ms after committed batch ${batches}`;
            const progress = () => run.events.filter((seen) => seen.kind === 'progress').length;
            await Promise.race([
              run.until((event) => event.kind === 'published' || progress() >= batches),
              new Promise((resolve) => setTimeout(resolve, span * 3)),
            ]);
            await new Promise((resolve) => setTimeout(resolve, delay));
          }
          run.child.kill('SIGKILL');
          const { signal } = await run.exited;
          const published = run.events.find((event) => event.kind === 'published');
          if (published !== undefined) span = Math.max(100, (published['at'] as number) - started);
          expect(signal, `seed ${SEED} round ${round}: the child ended before it was killed`).toBe('SIGKILL');
        }
        await settled(target);
        const after = await snapshot(target);
        const kinds = run.events.map((event) => (event.kind === 'progress' ? `${event.stage}:${event.done}/${event.total}` : event.kind));
        const where = `seed ${SEED} round ${round} (${changes}; ${plan}; it reported ${kinds.join(' ')})`;
        expect(
          run.events.filter((event) => event.kind === 'failed'),
          `${where}: a publish failed`,
        ).toEqual([]);
        checkAfterKill(where, before, after, current, order, history, run.events);
      }
    } finally {
      // A round that failed before its kill leaves no child behind.
      running?.child.kill('SIGKILL');
      await proxy.close();
    }
    // The last child published to completion: the database is a clean publish of the final root.
    const fresh = await fleet.cluster.createDatabase('fresh');
    const clean = await uninterruptedPublish(dir, fresh);
    // What is compared is whole: every artifact has its title, every source its cache entry.
    expect([...clean.state.artifacts.values()].filter((row) => row['title_json'] === null)).toEqual([]);
    expect([...clean.state.sources.values()].filter((row) => row['record'] === null)).toEqual([]);
    expect(clean.state.sources.size).toBe(clean.order.length);
    const final = await snapshot(target);
    expect([...final.artifacts.values()], `seed ${SEED}: artifacts after the last run`).toEqual([...clean.state.artifacts.values()]);
    expect([...final.sources.values()], `seed ${SEED}: sources after the last run`).toEqual([...clean.state.sources.values()]);
    expect([...final.documents.values()], `seed ${SEED}: documents after the last run`).toEqual([...clean.state.documents.values()]);
    expect([...clean.state.documents.values()].filter((row) => (row['docs'] as string[]).length === 0).length).toBeLessThan(
      clean.order.length,
    );
    const corpora = 'SELECT corpus_id, host, root FROM sessionctx.corpora ORDER BY 1';
    expect(await fleet.cluster.sql(target, corpora)).toEqual(await fleet.cluster.sql(fresh, corpora));
    // Fleet discovery over it answers as one local engine over the root.
    const database = await FleetDatabase.open({ url: new DatabaseUrl(fleet.cluster.url(target)) });
    const local = await createEngine({ root: dir, compression: 'zstd', workers: false, corpus: { watch: false } });
    try {
      const cases: CandidateCase[] = [
        ...CASES,
        ...['', 'generated', 'round', 'session-gen-00', 'project-3'].map((query) => ({
          target: { id: 'session-asker' },
          query,
          limit: 500,
          result: [],
        })),
      ];
      const fleetAnswers = await caseOutcomes(cases, (testCase) =>
        fleetCandidates(database, targetOf(testCase.target), testCase.query, testCase.limit ?? undefined),
      );
      const localAnswers = await caseOutcomes(cases, (testCase) =>
        local.listCandidates(targetOf(testCase.target), testCase.query, testCase.limit ?? undefined),
      );
      expect(fleetAnswers, `seed ${SEED}: fleet discovery after the last run`).toEqual(localAnswers);
      expect((await local.listCandidates(anonymousReader(), '', 500)).length).toBe(clean.order.length);
    } finally {
      await local.close();
      await database.close();
    }
  }, 240_000);
});
