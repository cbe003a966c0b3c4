// Issue 12 "Done when": two concurrent `sessionctx dcp manual on|off --session ID` runs (the built CLI), 20 times.
// The session stays readable every time, and each run either succeeds (exit 0) or fails with a typed lock or
// conflict code (SESSION_STORE_LOCKED / SESSION_STORE_CONFLICT, exit 1), having appended nothing.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asSessionId } from '../../src/protocol/events.js';
import { JsonlSessionStore } from '../../src/main/engine/store/jsonl-store.js';
import { REPO_ROOT } from '../support/fixtures.js';
import { dcpActiveSession } from '../main/engine/dcp/dcp-active-session.js';
import { makeTempDir, removeTempDir } from '../main/engine/store/store-test-builders.js';

const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');
const ROUNDS = 20;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function runCli(args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

let root: string;
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(root);
});

describe('two concurrent `sessionctx dcp manual on|off` runs', () => {
  it(`${ROUNDS} rounds: the session stays readable; each run succeeds or fails with a typed lock/conflict code`, {
    timeout: 240_000,
  }, async () => {
    const { session } = await dcpActiveSession();
    const store = await JsonlSessionStore.open({ root, compression: 'none', titleIndex: false });
    await store.create(session.header, session.events);
    const id = asSessionId(session.id);
    let succeeded = 0;
    let refused = 0;
    const codes = new Map<string, number>();
    const started = Date.now();
    for (let round = 0; round < ROUNDS; round += 1) {
      const before = (await store.inspect(id)).events.length;
      const runs = await Promise.all(
        ['on', 'off'].map((state) => runCli(['dcp', 'manual', state, '--session', session.id, '--root', root, '--json'])),
      );
      for (const run of runs) {
        if (run.code === 0) {
          succeeded += 1;
          continue;
        }
        refused += 1;
        const code = /SESSION_STORE_(LOCKED|CONFLICT)/.exec(run.stdout + run.stderr)?.[0];
        expect(code, `round ${round}: ${run.stdout}${run.stderr}`).toBeDefined();
        codes.set(code as string, (codes.get(code as string) ?? 0) + 1);
      }
      // Readable after every round, and it grew exactly when a run succeeded.
      const after = (await store.inspect(id)).events.length;
      expect(after > before).toBe(runs.some((run) => run.code === 0));
    }
    expect(succeeded).toBeGreaterThanOrEqual(ROUNDS);
    console.log(
      `[reliability] dcp manual on|off x2: ${ROUNDS} rounds, ${succeeded} succeeded, ${refused} refused (${[...codes].map(([code, count]) => `${code} ${count}`).join(', ') || 'none'}), 0 unreadable, ${Date.now() - started} ms`,
    );
  });
});
