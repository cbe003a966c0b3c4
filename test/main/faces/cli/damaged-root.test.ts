/**
 * Damage stays local, through the built CLI: on a copy of a dsh root with a corrupt zstd header, a FIFO, a
 * directory, a socket and a dangling link in place of five logs, `sessions` lists every other session and reports
 * the five by path (stderr, and `problems` with `--json`); `show` and `prepare` of a healthy session print the
 * same bytes as on the undamaged root; nothing hangs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZSTD_ROOT } from '../../../support/fixtures.js';
import { runBuiltCli } from '../../../support/cli-process.js';
import type { CliOutcome } from '../../../support/cli-process.js';
import { DAMAGED, HEALTHY_IDS, HIDDEN_IDS, makeDamagedRoot } from '../../engine/store/damaged-root-builders.js';
import type { DamagedRoot } from '../../engine/store/damaged-root-builders.js';

/** Every command must finish well within this; a blocking open of the FIFO would not. */
const NO_HANG_MS = 20_000;

let damaged: DamagedRoot;
let cache: string;

function cli(args: readonly string[]): Promise<CliOutcome> {
  return runBuiltCli(args, { env: { ...process.env, XDG_CACHE_HOME: cache }, timeoutMs: NO_HANG_MS });
}

beforeAll(async () => {
  cache = mkdtempSync(join(tmpdir(), 'sessionctx-damaged-cache-'));
  // The unreadable project directory needs a non-root user or an in-process file-system shim; the child CLI gets neither.
  damaged = await makeDamagedRoot('zstd', { unreadableProject: false });
});
afterAll(async () => {
  await damaged.cleanup();
  rmSync(cache, { recursive: true, force: true });
});

const damagedPaths = (): string[] =>
  Object.values(DAMAGED)
    .map((entry) => damaged.artifact(entry))
    .sort();

describe('sessionctx on a damaged root', () => {
  it('sessions lists every healthy session and reports each damaged log once, by path, with a code', async () => {
    const human = await cli(['sessions', '--root', damaged.root]);
    expect(human.code).toBe(0);
    for (const id of [...HEALTHY_IDS, ...HIDDEN_IDS]) expect(human.stdout).toContain(id);
    for (const entry of Object.values(DAMAGED)) expect(human.stdout).not.toContain(entry.id);
    const warnings = human.stderr.trim().split('\n');
    expect(warnings).toHaveLength(5);
    for (const path of damagedPaths())
      expect(warnings.filter((line) => line.startsWith(`sessionctx: warning: skipped ${path}: `))).toHaveLength(1);

    const json = await cli(['sessions', '--root', damaged.root, '--json']);
    const { sessions, problems } = JSON.parse(json.stdout) as {
      sessions: Array<{ header: { id: string } }>;
      problems: Array<{ path: string; code: string }>;
    };
    expect(sessions.map((row) => row.header.id).sort()).toEqual([...HEALTHY_IDS, ...HIDDEN_IDS].sort());
    expect(problems.map((problem) => problem.path).sort()).toEqual(damagedPaths());
    expect(Object.fromEntries(problems.map((problem) => [problem.path, problem.code]))).toEqual({
      [damaged.artifact(DAMAGED.corruptHeader)]: 'SESSION_STORE_CORRUPT_HEADER',
      [damaged.artifact(DAMAGED.fifo)]: 'SESSION_STORE_NOT_A_FILE',
      [damaged.artifact(DAMAGED.directory)]: 'SESSION_STORE_NOT_A_FILE',
      [damaged.artifact(DAMAGED.socket)]: 'SESSION_STORE_NOT_A_FILE',
      [damaged.artifact(DAMAGED.brokenLink)]: 'SESSION_STORE_BROKEN_LINK',
    });
  }, 60_000);

  it('show of a healthy session prints the same bytes as on the undamaged root', async () => {
    for (const id of HEALTHY_IDS.slice(0, 3)) {
      const before = await cli(['show', id, '--root', ZSTD_ROOT, '--json']);
      const after = await cli(['show', id, '--root', damaged.root, '--json']);
      expect(after.code, after.stderr).toBe(0);
      expect(after.stdout).toBe(before.stdout);
    }
  }, 60_000);

  it('prepare citing a healthy session prints the same bytes as on the undamaged root', async () => {
    const mention = JSON.parse((await cli(['mention', HEALTHY_IDS[3], '--root', ZSTD_ROOT, '--json'])).stdout) as { mention: string };
    const args = ['prepare', '--target', 'session-new', `Background: ${mention.mention}.`, '--json'];
    const before = await cli([...args, '--root', ZSTD_ROOT]);
    const after = await cli([...args, '--root', damaged.root]);
    expect(after.code, after.stderr).toBe(0);
    // The context message's id is random per preparation; everything else is byte-identical.
    const withoutId = (stdout: string): string => stdout.replace(/"id": "[0-9a-f-]{36}"/u, '"id": "…"');
    expect(withoutId(after.stdout)).toBe(withoutId(before.stdout));
  }, 60_000);

  it('show of a damaged session fails with its own typed error, promptly', async () => {
    const fifo = await cli(['show', DAMAGED.fifo.id, '--root', damaged.root, '--json']);
    expect(fifo.code).toBe(1);
    expect((JSON.parse(fifo.stdout) as { error: { code: string } }).error.code).not.toMatch(/^(UNKNOWN|E[A-Z]+)$/);
  }, 60_000);
});
