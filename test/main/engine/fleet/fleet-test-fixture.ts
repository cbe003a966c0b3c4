/**
 * What the fleet tests share: a throwaway PostgreSQL cluster and a scratch directory per test file (started before
 * its tests, removed after), roots holding copies of dsh-written fixture sessions, and dsh's candidate cases with the
 * reader each case names.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ZSTD_ROOT, fixtureSessions } from '../../../support/fixtures.js';
import { PostgresCluster } from '../../../support/postgres-cluster.js';

/** One of dsh's candidate cases (expected/candidates.json). */
export interface CandidateCase {
  target: { id: string; cwd?: string };
  query: string;
  limit: number | null;
  kind?: string;
  result: unknown[] | { error: { name: string; code: string; message: string } };
}

/** The reader a candidate case names, as the engine takes it. */
export function targetOf(target: { id: string; cwd?: string }): { id: string; session: { header: { cwd?: string } } } {
  return { id: target.id, session: { header: target.cwd === undefined ? {} : { cwd: target.cwd } } };
}

/** A test file's cluster and scratch directory (available inside its tests). */
export interface FleetFixture {
  readonly cluster: PostgresCluster;
  readonly scratch: string;
  /** A new root holding copies of the fixture sessions at `indexes` (zstd; an index past the fixture is skipped). */
  rootOf(indexes: readonly number[]): string;
}

/** Copies the fixture session at `index` into `root` (zstd). */
export function addFixtureSession(root: string, index: number): void {
  const session = fixtureSessions()[index];
  if (session === undefined) throw new Error(`no fixture session ${index}`);
  cpSync(join(ZSTD_ROOT, session.projectDir, session.id), join(root, session.projectDir, session.id), { recursive: true });
}

/**
 * Starts a cluster and a scratch directory for the calling test file (`beforeAll`, 60 s for `initdb`) and stops and
 * removes them after it (`afterAll`).
 * @param name - names the scratch directory
 */
export function useFleetFixture(name: string): FleetFixture {
  let cluster: PostgresCluster | undefined;
  let scratch: string | undefined;
  let roots = 0;
  beforeAll(async () => {
    cluster = await PostgresCluster.start();
    scratch = mkdtempSync(join(tmpdir(), `sessionctx-${name}-`));
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the fleet fixture is used before its beforeAll ran');
    return value;
  };
  return {
    get cluster() {
      return started(cluster);
    },
    get scratch() {
      return started(scratch);
    },
    rootOf(indexes) {
      roots += 1;
      const root = join(started(scratch), `root-${roots}`);
      mkdirSync(root, { recursive: true });
      for (const index of indexes) if (index < fixtureSessions().length) addFixtureSession(root, index);
      return root;
    },
  };
}

/** Every case's outcome, in order: the answer as JSON, or the error's name, code and message. */
export async function caseOutcomes(
  cases: readonly CandidateCase[],
  ask: (testCase: CandidateCase) => Promise<unknown>,
): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const testCase of cases) {
    out.push(
      await ask(testCase).then(
        (value) => JSON.stringify(value),
        (error: { name: string; code: string; message: string }) => ({ name: error.name, code: error.code, message: error.message }),
      ),
    );
  }
  return out;
}
