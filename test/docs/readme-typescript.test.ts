/**
 * The README's TypeScript examples compile under `tsc --strict` (issue 26), as a user's project would compile them:
 * each block a module of its own in an ESM package (`"type": "module"`, NodeNext resolution) that imports
 * `sessionctx` through the package's own exports and types, with Node's types. readme-examples.test.ts runs them.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/fixtures.js';
import { fencedBlocks } from '../support/markdown-blocks.js';

const run = promisify(execFile);
const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const blocks = fencedBlocks(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')).filter((block) => block.language === 'ts');

let project: string;

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'sessionctx-readme-ts-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'readme-examples', private: true, type: 'module' }));
  mkdirSync(join(project, 'node_modules', '@types'), { recursive: true });
  symlinkSync(REPO_ROOT, join(project, 'node_modules', 'sessionctx'), 'dir');
  symlinkSync(join(REPO_ROOT, 'node_modules', '@types', 'node'), join(project, 'node_modules', '@types', 'node'), 'dir');
  for (const block of blocks) writeFileSync(join(project, `example-${block.line}.ts`), block.body);
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('README.md TypeScript examples', () => {
  it('has TypeScript examples', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  it('every one compiles under tsc --strict', { timeout: 120_000 }, async () => {
    const files = blocks.map((block) => `example-${block.line}.ts`);
    const args = [TSC, '--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
    const outcome = await run(process.execPath, [...args, '--types', 'node', ...files], { cwd: project, maxBuffer: 16 * 1024 * 1024 }).then(
      () => '',
      (error: { stdout: string; stderr: string }) => `${error.stdout}${error.stderr}`,
    );
    // tsc names each failing file example-<README line>.ts.
    expect(outcome).toBe('');
  });
});
