/**
 * Temporary copies of the repository's dsh-written fixture roots. Tests never open test/fixtures in place: dsh's
 * JSONL backend may repair or append to a log it serves, and the fixtures are read-only ground truth.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** test/fixtures/dsh-small, resolved from this file. */
export const DSH_SMALL = fileURLToPath(new URL('../../fixtures/dsh-small/', import.meta.url));

/** A temporary session root and its removal. */
export interface TempRoot {
  readonly root: string;
  remove(): void;
}

/**
 * Copy test/fixtures/dsh-small/<variant> (`raw` or `zstd`) into a fresh temporary directory.
 * @param variant - which fixture root to copy.
 * @returns the copy's path and a remover.
 */
export function copyFixtureRoot(variant: 'raw' | 'zstd' = 'raw'): TempRoot {
  const root = mkdtempSync(join(tmpdir(), `dsh-host-${variant}-`));
  cpSync(join(DSH_SMALL, variant), root, { recursive: true });
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** One recorded discovery case of expected/candidates.json (`result` absent when dsh refused the call). */
export interface CandidateCase {
  readonly target: { readonly id: string; readonly cwd?: string };
  readonly query: string;
  readonly limit: number;
  readonly kind: string;
  readonly result?: unknown[];
}

/** Read one of test/fixtures/dsh-small/expected/*.json. */
export function readExpected<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(join(DSH_SMALL, 'expected', name), 'utf8')) as T;
}

/**
 * Every file under `root` by root-relative path (sorted), with the sha256 of its bytes, for comparing whole roots.
 * @param root - directory to walk.
 * @returns path → hex sha256 of the file's bytes.
 */
export function snapshotTree(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.set(relative(root, path), createHash('sha256').update(readFileSync(path)).digest('hex'));
    }
  };
  walk(root);
  return files;
}
