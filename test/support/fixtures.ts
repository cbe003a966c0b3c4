/**
 * Locations of the read-only dsh fixtures kept in the repository (`test/fixtures/`, see its README).
 * Tests run from dist/test/…, so paths are resolved from the repository root, not from this file.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (two levels above dist/test/support). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

/** `test/fixtures/dsh-small`: sessions written by dsh's own code and what dsh computed over them. */
export const DSH_SMALL = resolve(REPO_ROOT, 'test', 'fixtures', 'dsh-small');

/** `test/fixtures/dcp-dsh`: scripted DCP conversations and what dsh with dsh-dcp recorded for them. */
export const DCP_DSH = resolve(REPO_ROOT, 'test', 'fixtures', 'dcp-dsh');

/** The raw-JSONL session root of the fixtures. */
export const RAW_ROOT = join(DSH_SMALL, 'raw');

/** The zstd session root of the fixtures (the same sessions as RAW_ROOT). */
export const ZSTD_ROOT = join(DSH_SMALL, 'zstd');

/** Reads and parses one file of `dsh-small/expected/`. */
export function readExpected<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(join(DSH_SMALL, 'expected', name), 'utf8')) as T;
}

/** One fixture session artifact: its id and the absolute paths of its raw and zstd files. */
export interface FixtureSession {
  readonly id: string;
  readonly projectDir: string;
  readonly rawPath: string;
  readonly zstdPath: string;
}

/**
 * The sub-directories of `dir`, sorted. Files are skipped: a store opened over the fixtures by a test running as
 * root may leave its title index file (`.sessionctx-title-index.v1`) beside the project directories.
 */
function directoriesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** Every session of the fixture corpus, found by walking the raw root. */
export function fixtureSessions(): FixtureSession[] {
  const out: FixtureSession[] = [];
  for (const projectDir of directoriesOf(RAW_ROOT)) {
    for (const sessionDir of directoriesOf(join(RAW_ROOT, projectDir))) {
      out.push({
        id: sessionDir,
        projectDir,
        rawPath: join(RAW_ROOT, projectDir, sessionDir, 'session.jsonl'),
        zstdPath: join(ZSTD_ROOT, projectDir, sessionDir, 'session.jsonl.zstd'),
      });
    }
  }
  return out;
}
