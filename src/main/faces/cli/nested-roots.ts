/**
 * A root one level too shallow: a directory that lists no session but whose sub-directories are session roots
 * (they hold dsh's project directories, `--<project key>--`). `sessions` names them in a hint instead of only
 * saying "no sessions".
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** dsh's project directory names: `--<projectKey(cwd)>--` (SESSION-LOG.md §9.3). */
const PROJECT_DIR = /^--.*--$/;

/** How many sub-directories are looked into at most (a large unrelated directory is not walked). */
const LOOKED_INTO = 64;

/**
 * The sub-directories of `root` that hold project directories, sorted; empty when there are none or `root` cannot
 * be read.
 * @param root - a session root that listed nothing.
 */
export async function nestedSessionRoots(root: string): Promise<string[]> {
  const children = await readdir(root, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const child of children.filter((entry) => entry.isDirectory()).slice(0, LOOKED_INTO)) {
    const path = join(root, child.name);
    const grandchildren = await readdir(path, { withFileTypes: true }).catch(() => []);
    if (grandchildren.some((entry) => entry.isDirectory() && PROJECT_DIR.test(entry.name))) found.push(path);
  }
  return found.sort();
}
