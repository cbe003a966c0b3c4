/**
 * One scenario, run on a real dsh host once per resolver, and what each run left behind in a form that can be
 * compared byte for byte: every model request, every `agent/error`, the target's in-memory events, its persisted log
 * and a digest of every file of the root.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Plugin } from '@deepseek-ai/cordis';
import DshResolver from '@deepseek-ai/dsh-session-reference';
import SessionctxResolver from 'sessionctx/dsh';
import { bootDshHost } from '../harness/dsh-host.mts';
import type { DshHost, DshTarget, RecordedRequest, RunTurnOptions, ScriptedReply, TurnResult } from '../harness/dsh-host.mts';
import { snapshotTree } from '../harness/fixture-root.mts';

/** A resolver to mount: dsh's own, or sessionctx's with a configuration. */
export interface ResolverVariant {
  readonly name: string;
  readonly resolver: Plugin;
  readonly config: Record<string, unknown>;
}

/** dsh 0.1.0-rc.8's own resolver: the reference every other run is compared with. */
export const DSH: ResolverVariant = { name: 'dsh', resolver: DshResolver as unknown as Plugin, config: {} };

/** sessionctx's resolver in each reads mode: the engine on its pool, the engine on the host's thread, the host's reads. */
export const SESSIONCTX_VARIANTS: readonly ResolverVariant[] = [
  { name: 'sessionctx', resolver: SessionctxResolver as unknown as Plugin, config: {} },
  { name: 'sessionctx workers:false', resolver: SessionctxResolver as unknown as Plugin, config: { workers: false } },
  { name: 'sessionctx reads:host', resolver: SessionctxResolver as unknown as Plugin, config: { reads: 'host' } },
];

/** The target every scenario's message is sent in: a new session in the ml-pipeline project. */
export const TARGET = 'session-00000000-0000-4000-8000-000000000000';
export const TARGET_CWD = '/home/dev/projects/ml-pipeline';

/** What a scenario does on a booted host. */
export interface Scenario {
  readonly name: string;
  /** Configuration of the resolver in every run (dsh's keys only). */
  readonly config?: Record<string, unknown>;
  readonly replies?: readonly ScriptedReply[];
  /** Work on the host before the target's turn (a live source, say). */
  readonly before?: (host: DshHost) => Promise<void>;
  /** The target's message. */
  readonly text: (host: DshHost, target: DshTarget) => string;
  readonly turnOptions?: (host: DshHost, target: DshTarget) => RunTurnOptions;
}

/** An `Error` and its causes as the agent loop renders them (name, message, code of each link). */
export interface ErrorLink {
  readonly name: string;
  readonly message: string;
  readonly code: unknown;
}

/** One run's observable outcome. */
export interface RunRecord {
  readonly requests: readonly RecordedRequest[];
  readonly errors: ReadonlyArray<{ readonly turn: number; readonly step: number; readonly chain: readonly ErrorLink[] }>;
  /** The own property names of each `agent/error`'s error. */
  readonly errorKeys: readonly (readonly string[])[];
  /** The target's whole in-memory log, serialised (key order included). */
  readonly events: string;
  readonly outcome: TurnResult['outcome'];
  /** The target's persisted log file, as stored (zstd frames on a zstd root). */
  readonly log: Buffer;
  /** Every file of the root after the run, by path, with its digest. */
  readonly tree: ReadonlyMap<string, string>;
  /** Calls of the host's `ctx.sessionQuery.readSurface` during the run: how many source reads went through the host. */
  readonly hostSurfaceReads: number;
}

function chainOf(error: unknown): ErrorLink[] {
  const chain: ErrorLink[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 8; depth += 1) {
    if (current instanceof Error) {
      chain.push({ name: current.name, message: current.message, code: (current as { code?: unknown }).code });
      current = current.cause;
    } else {
      chain.push({ name: typeof current, message: String(current), code: undefined });
      break;
    }
  }
  return chain;
}

/** A fresh copy of `template` (a session root) in a temporary directory. */
export function copyRoot(template: string): { root: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'dsh-run-'));
  cpSync(template, root, { recursive: true });
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** Runs `scenario` on a fresh copy of `template` with `variant` mounted, and disposes the host. */
export async function runScenario(template: string, variant: ResolverVariant, scenario: Scenario): Promise<RunRecord> {
  const { root, remove } = copyRoot(template);
  const host = await bootDshHost({
    root,
    resolver: variant.resolver,
    resolverConfig: { ...scenario.config, ...variant.config },
    replies: scenario.replies ?? [{ kind: 'text', text: 'Noted.' }],
  });
  // Count the source reads that go through the host's query engine (dsh's resolver and `reads: 'host'` make them).
  const query = host.ctx.sessionQuery;
  const readSurface = query.readSurface.bind(query);
  let hostSurfaceReads = 0;
  query.readSurface = (...args: Parameters<typeof readSurface>) => {
    hostSurfaceReads += 1;
    return readSurface(...args);
  };
  try {
    await scenario.before?.(host);
    const target = await host.createSession({ id: TARGET, cwd: TARGET_CWD });
    const turn = await host.runTurn(target, scenario.text(host, target), scenario.turnOptions?.(host, target));
    const events = JSON.stringify(target.session.events);
    // The log and the root as the host leaves them: disposing retires the sessions through the persistence.
    await host.dispose();
    return {
      requests: turn.requests,
      errors: turn.errors.map((record) => ({ turn: record.turn, step: record.step, chain: chainOf(record.error) })),
      errorKeys: turn.errors.map((record) => Object.keys(record.error as object).sort()),
      events,
      outcome: turn.outcome,
      log: readFileSync(target.logPath),
      tree: snapshotTree(root),
      hostSurfaceReads,
    };
  } finally {
    await host.dispose();
    remove();
  }
}
