/**
 * Detects which encoding a root holds, for callers (the CLI) that open a root they did not create.
 */
import { join } from 'node:path';
import type { Compression } from '../../protocol/storage-paths.js';
import { DEFAULT_COMPRESSION } from './store-config.js';
import { pathExists, readDirectory } from './store-layout.js';

/**
 * The encoding of the first artifact found under `root` (project directories and session
 * directories in name order), or dsh's default `'zstd'` for an empty or missing root. A root that
 * mixes encodings is still reported by the store itself when it lists.
 */
export async function detectCompression(root: string): Promise<Compression> {
  const projects = (await readDirectory(root)).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  for (const project of projects) {
    const sessions = (await readDirectory(join(root, project))).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
    for (const session of sessions) {
      if (await pathExists(join(root, project, session, 'session.jsonl.zstd'))) return 'zstd';
      if (await pathExists(join(root, project, session, 'session.jsonl'))) return 'none';
    }
  }
  return DEFAULT_COMPRESSION;
}
