/**
 * Where `sessionctx demo` writes, and what it leaves behind. Without `--root` the corpus goes to a fresh temporary
 * directory, the demo says where, and removes it at the end (nothing new remains in `$TMPDIR`); its follow-up
 * commands then say how to keep a corpus. With `--root` the directory must be missing or empty: a non-empty root, a
 * root of the other encoding or a file is refused with a typed error before anything is written.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../../src/main/faces/cli/cli-io.js';
import { runDemoCommand } from '../../../../src/main/faces/cli/commands/demo-command.js';
import { RAW_ROOT } from '../../../support/fixtures.js';
import { CLI_BIN, runBuiltCli } from '../../../support/cli-process.js';
import { cliInvocation } from '../../../../src/main/faces/cli/invocation.js';
import type { CliOutcome } from '../../../support/cli-process.js';

function demo(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<CliOutcome> {
  return runBuiltCli(['demo', ...args], { env });
}

/** Every file path under `dir`, relative, sorted. */
function tree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<{ name: string; parentPath: string; isFile(): boolean }>)
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

describe('sessionctx demo: placement and clean-up', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-demo-placement-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the default demo says where it wrote, removes it at the end, and leaves nothing in $TMPDIR', { timeout: 60_000 }, async () => {
    const temp = join(dir, 'tmp-human');
    mkdirSync(temp);
    const outcome = await demo([], { ...process.env, TMPDIR: temp });
    expect(outcome.code).toBe(0);
    const root = /written in DeepSeek Harness's own format \(zstd\) to:\n {2}(\S+)\n/u.exec(outcome.stdout)?.[1];
    expect(root?.startsWith(`${temp}/`)).toBe(true);
    // The command is named as it runs from here (demo-suggestions.test.ts runs the suggested lines).
    const cli = cliInvocation(CLI_BIN, process.cwd());
    expect(outcome.stdout).toContain(`It is removed when the demo ends (run ${cli} demo --keep, or --root DIR, to keep one).`);
    // The follow-up commands cannot name a removed corpus: they say how to keep one.
    expect(outcome.stdout).toContain(
      `To explore one, run ${cli} demo --root DIR (or ${cli} demo --keep and use the root it prints), then:`,
    );
    expect(outcome.stdout).toContain(`${cli} dcp show b1 --raw --session session-demo-dcp-cart-totals --root DIR\n`);
    expect(outcome.stdout).not.toContain(`--root ${root}`);
    expect(outcome.stdout).toMatch(/\(removed \S+: nothing of this demo remains\)\n$/u);
    expect(readdirSync(temp)).toEqual([]);
  });

  it('--json without --root names the root, says it was not kept, and leaves nothing in $TMPDIR', async () => {
    const temp = join(dir, 'tmp-json');
    mkdirSync(temp);
    const outcome = await demo(['--json'], { ...process.env, TMPDIR: temp });
    expect(outcome.code).toBe(0);
    const summary = JSON.parse(outcome.stdout) as { root: string; kept: boolean; sessions: string[] };
    expect(summary.root.startsWith(`${temp}/`)).toBe(true);
    expect(summary.kept).toBe(false);
    expect(summary.sessions).toHaveLength(5);
    expect(readdirSync(temp)).toEqual([]);
  });

  it('--root on a non-empty directory is refused with DEMO_ROOT_NOT_EMPTY before anything is written', async () => {
    const root = join(dir, 'busy-root');
    mkdirSync(root);
    writeFileSync(join(root, 'notes.txt'), 'mine');
    const outcome = await demo(['--root', root, '--json']);
    expect(outcome.code).toBe(1);
    const error = (JSON.parse(outcome.stdout) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('DEMO_ROOT_NOT_EMPTY');
    expect(error.message).toContain(JSON.stringify(root));
    expect(tree(root)).toEqual(['notes.txt']);
  });

  it('--root on a raw (uncompressed) root is refused, and no zstd session is written into it', async () => {
    const root = join(dir, 'raw-root');
    cpSync(RAW_ROOT, root, { recursive: true, filter: (source) => !source.endsWith('.sessionctx-title-index.v1') });
    const before = tree(root);
    const outcome = await demo(['--root', root]);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr).toMatch(
      /^sessionctx: error: refusing to write the demo corpus into .*it holds raw \(uncompressed\) sessions, and the demo writes zstd.* \(DEMO_ROOT_NOT_EMPTY\)\n$/u,
    );
    expect(tree(root)).toEqual(before);
    expect(before.some((path) => path.endsWith('.zstd'))).toBe(false);
  });

  it('--root on a file is refused with DEMO_ROOT_NOT_DIRECTORY', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const outcome = await demo(['--root', file, '--json']);
    expect(outcome.code).toBe(1);
    expect((JSON.parse(outcome.stdout) as { error: { code: string } }).error.code).toBe('DEMO_ROOT_NOT_DIRECTORY');
  });

  it('--root on an empty directory writes the corpus there and keeps it', async () => {
    const root = join(dir, 'empty-root');
    mkdirSync(root);
    const outcome = await demo(['--root', root, '--json']);
    expect(outcome.code).toBe(0);
    expect(JSON.parse(outcome.stdout)).toMatchObject({ root, kept: true });
    expect(tree(root).filter((path) => path.endsWith('session.jsonl.zstd'))).toHaveLength(5);
  });

  it("keep: true (the `--keep` of the demo's own options) keeps the temporary corpus and says so", async () => {
    let stdout = '';
    const io: CliIo = {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: () => true },
      env: {},
      cwd: dir,
      readStdin: async () => '',
    };
    await runDemoCommand(io, { json: true, keep: true });
    const summary = JSON.parse(stdout) as { root: string; kept: boolean; sessions: string[] };
    try {
      expect(summary.kept).toBe(true);
      expect(existsSync(summary.root)).toBe(true);
      expect(tree(summary.root).filter((path) => path.endsWith('session.jsonl.zstd'))).toHaveLength(5);
    } finally {
      rmSync(join(summary.root, '..'), { recursive: true, force: true });
    }
  });
});
