/**
 * The README cannot drift from the code: every command block and every library example in it runs here,
 * against the repository's fixtures.
 *
 * - ```sh blocks: each `$ ` line runs in `sh` from the repository root with `sessionctx` on the PATH (the
 *   built executable) and must exit 0; the lines shown after it must appear in its output, where `…` stands
 *   for any text. A block preceded by `<!-- readme-test: not run (…) -->` is skipped (the Quick start, which
 *   is this very test suite).
 * - ```ts blocks: each, its types stripped (TypeScript's `transpileModule`), runs as an ES module that imports
 *   `sessionctx` as an installed package would, from the repository root, and must exit 0 (readme-typescript.test.ts
 *   type-checks them under `--strict`).
 * - ```json blocks (unless skipped the same way): each is valid JSON; a configuration example must be accepted by `sessionctx config`, a
 *   scenario example must run with `sessionctx script run`.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ts from 'typescript';
import { REPO_ROOT } from '../support/fixtures.js';
import { fencedBlocks } from '../support/markdown-blocks.js';

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');

/** The commands of a shell block and the output lines shown under each. */
function shellSteps(body: string): Array<{ command: string; shown: string[] }> {
  const steps: Array<{ command: string; shown: string[] }> = [];
  for (const line of body.split('\n')) {
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2), shown: [] });
    else if (line.trim() !== '' && steps.length > 0) steps.at(-1)?.shown.push(line);
  }
  return steps;
}

/** A shown line as a pattern over one output line: `…` is any text. */
function shownPattern(shown: string): RegExp {
  const parts = shown
    .trim()
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(parts.join('.*'));
}

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const blocks = fencedBlocks(readme);

let scratch: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'sessionctx-readme-'));
  const bin = join(scratch, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'sessionctx'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'sessionctx'), 0o755);
  // `import 'sessionctx'` resolves as for an installed package: through the package's own exports.
  mkdirSync(join(scratch, 'node_modules'));
  symlinkSync(REPO_ROOT, join(scratch, 'node_modules', 'sessionctx'), 'dir');
  mkdirSync(join(scratch, 'home'));
  env = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: join(scratch, 'home'),
    XDG_CACHE_HOME: join(scratch, 'cache'),
    NO_COLOR: '1',
  };
  delete env.SESSIONCTX_ROOT;
  delete env.DSH_HOME;
  rmSync('/tmp/sessionctx-readme', { recursive: true, force: true });
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync('/tmp/sessionctx-readme', { recursive: true, force: true });
});

describe('README.md', () => {
  it('has command blocks, library examples and configuration examples to check', () => {
    expect(blocks.filter((block) => block.language === 'sh' && !block.skipped).length).toBeGreaterThan(0);
    expect(blocks.filter((block) => block.language === 'ts').length).toBeGreaterThan(0);
    expect(blocks.filter((block) => block.language === 'json').length).toBeGreaterThan(0);
  });

  for (const block of blocks.filter((candidate) => candidate.language === 'sh' && !candidate.skipped)) {
    it(`runs the commands of the sh block at line ${block.line}`, async () => {
      for (const step of shellSteps(block.body)) {
        let stdout: string;
        try {
          ({ stdout } = await run('sh', ['-c', step.command], { cwd: REPO_ROOT, env, maxBuffer: 64 * 1024 * 1024 }));
        } catch (error) {
          const failed = error as { code: unknown; stderr: string };
          throw new Error(`README line ${block.line}: \`${step.command}\` exited ${String(failed.code)}: ${failed.stderr}`);
        }
        const outputLines = stdout.split('\n');
        let from = 0;
        for (const shown of step.shown) {
          if (shown.trim() === '…') continue;
          const pattern = shownPattern(shown);
          const at = outputLines.findIndex((line, index) => index >= from && pattern.test(line));
          expect(
            at,
            `README line ${block.line}: \`${step.command}\` should print a line like ${JSON.stringify(shown)}; it printed:\n${stdout}`,
          ).toBeGreaterThanOrEqual(0);
          from = at + 1;
        }
      }
    });
  }

  blocks
    .filter((candidate) => candidate.language === 'ts')
    .forEach((block) => {
      it(`runs the library example at line ${block.line}`, async () => {
        const file = join(scratch, `example-${block.line}.mjs`);
        const { outputText } = ts.transpileModule(block.body, {
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
        });
        writeFileSync(file, outputText);
        try {
          await run(process.execPath, [file], { cwd: REPO_ROOT, env, maxBuffer: 64 * 1024 * 1024 });
        } catch (error) {
          const failed = error as { code: unknown; stderr: string };
          throw new Error(`README line ${block.line}: the example exited ${String(failed.code)}: ${failed.stderr}`);
        }
      });
    });

  blocks
    .filter((candidate) => candidate.language === 'json' && !candidate.skipped)
    .forEach((block) => {
      it(`accepts the JSON example at line ${block.line}`, async () => {
        const value = JSON.parse(block.body) as Record<string, unknown>;
        const dir = mkdtempSync(join(scratch, 'json-'));
        if ('steps' in value) {
          writeFileSync(join(dir, 'scenario.json'), block.body);
          await run(process.execPath, [BIN, 'script', 'run', join(dir, 'scenario.json'), '--root', join(dir, 'sessions'), '--json'], {
            cwd: dir,
            env,
          });
        } else {
          writeFileSync(join(dir, 'sessionctx.config.json'), block.body);
          const { stdout } = await run(process.execPath, [BIN, 'config', '--json'], { cwd: dir, env });
          const { sources } = JSON.parse(stdout) as { sources: Record<string, string> };
          for (const key of Object.keys(value)) expect(sources[key], `README line ${block.line}: key ${key}`).toBe('file');
        }
      });
    });
});
