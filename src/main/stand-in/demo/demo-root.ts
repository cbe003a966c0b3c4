/**
 * The check `sessionctx demo --root DIR` runs before it writes anything: the root must be missing or an empty
 * directory (see {@link DemoRootError}).
 */
import { readdir } from 'node:fs/promises';
import { detectCompression } from '../../engine/store/detect-compression.js';
import { DemoRootError } from './demo-root-error.js';

/** The `code` of a Node file-system error, if any. */
function systemCode(error: unknown): unknown {
  return (error as { code?: unknown } | null | undefined)?.code;
}

/**
 * Resolves when `root` is missing or an empty directory.
 *
 * @throws DemoRootError `DEMO_ROOT_NOT_EMPTY` when it has any entry (the message says when it holds raw sessions,
 * which the zstd demo corpus could not share a root with); `DEMO_ROOT_NOT_DIRECTORY` when it is a file. Other
 * file-system failures (permissions) are rethrown as they are.
 */
export async function assertEmptyDemoRoot(root: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(root);
  } catch (error) {
    if (systemCode(error) === 'ENOENT') return;
    if (systemCode(error) === 'ENOTDIR')
      throw new DemoRootError(
        'DEMO_ROOT_NOT_DIRECTORY',
        root,
        `refusing to write the demo corpus to ${JSON.stringify(root)}: it is not a directory`,
      );
    throw error;
  }
  if (entries.length === 0) return;
  const raw = (await detectCompression(root)) === 'none' ? '; it holds raw (uncompressed) sessions, and the demo writes zstd' : '';
  const first = [...entries].sort()[0] as string;
  throw new DemoRootError(
    'DEMO_ROOT_NOT_EMPTY',
    root,
    `refusing to write the demo corpus into ${JSON.stringify(root)}: it is not empty (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}, e.g. ${JSON.stringify(first)})${raw}; give a new or empty directory`,
  );
}
