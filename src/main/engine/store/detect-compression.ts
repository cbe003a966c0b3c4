/**
 * Detects which encoding a root holds, for callers (the CLI) that open a root they did not create.
 */
import { join } from 'node:path';
import type { Compression } from '../../../protocol/storage-paths.js';
import { DEFAULT_COMPRESSION } from './store-config.js';
import { pathExists, readDirectory } from './store-layout.js';

/**
 * The encoding of the first artifact found under `root` (project directories and session
 * directories in name order), or dsh's default `'zstd'` for an empty or missing root. A root that
 * mixes encodings is still reported by the store itself when it lists. A project or session directory
 * that cannot be read is passed over (the store's listing reports it); only an unreadable root throws
 * (a typed store I/O error).
 */
export async function detectCompression(root: string): Promise<Compression> {
  const projects = (await readDirectory(root))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  for (const project of projects) {
    const sessions = (await readDirectory(join(root, project)).catch(passOver))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    for (const session of sessions) {
      if (await pathExists(join(root, project, session, 'session.jsonl.zstd')).catch(notDecisive)) return 'zstd';
      if (await pathExists(join(root, project, session, 'session.jsonl')).catch(notDecisive)) return 'none';
    }
  }
  return DEFAULT_COMPRESSION;
}

/** An unreadable project directory tells nothing about the encoding: detection goes on with the next one. */
function passOver(): [] {
  return [];
}

/** A session directory whose artifact cannot be checked tells nothing either: the next one decides. */
function notDecisive(): false {
  return false;
}
