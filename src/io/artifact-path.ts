/**
 * Where an artifact lives under a root (SESSION-LOG.md §9.2–§9.4, §9.16 rule 7): the path a header's id and cwd
 * name, with every encoded component checked against the file system's name limit before any file-system call.
 * The store and the pool tasks both place artifacts through this one module.
 */
import { join } from 'node:path';
import { SessionLogError } from '../protocol/errors.js';
import { artifactFileName, encodeSegment, projectDirName } from '../protocol/storage-paths.js';
import type { Compression } from '../protocol/storage-paths.js';

/** What placing an artifact needs of a store: its root and its one encoding (a store config and a task's artifact both fit). */
export interface StoreLayout {
  readonly root: string;
  readonly compression: Compression;
}

/** The longest file name Linux and macOS accept for one path component, in bytes (NAME_MAX). */
export const MAX_COMPONENT_BYTES = 255;

/**
 * Fails when an encoded path component is longer than {@link MAX_COMPONENT_BYTES} UTF-8 bytes.
 *
 * @throws SessionLogError `SESSION_STORE_INVALID_PATH` naming the limit.
 */
export function assertComponentFits(what: 'session id' | 'project directory', component: string): void {
  const bytes = Buffer.byteLength(component, 'utf8');
  if (bytes > MAX_COMPONENT_BYTES) {
    throw new SessionLogError(
      'SESSION_STORE_INVALID_PATH',
      `session store: the ${what} encodes to a ${bytes}-byte directory name; file systems allow at most ${MAX_COMPONENT_BYTES} bytes per path component (use a shorter ${what === 'session id' ? 'id' : 'cwd'})`,
    );
  }
}

/**
 * The artifact path a header names: `<root>/<projectDir(cwd)>/<encodeSegment(id)>/session<suffix>`.
 *
 * @param layout - the store's root and encoding.
 * @param id - the session id.
 * @param cwd - the session's working directory (`undefined` places it under `_no-cwd`).
 * @returns the absolute artifact path (when `layout.root` is absolute).
 * @throws SessionLogError `SESSION_STORE_INVALID_PATH` when a component is too long; the encoders' error for an
 *   empty id or cwd.
 */
export function artifactPathFor(layout: StoreLayout, id: string, cwd: string | undefined): string {
  const project = projectDirName(cwd);
  const segment = encodeSegment(id);
  // Checked before any file-system call: an over-long name would otherwise surface as a raw ENAMETOOLONG.
  assertComponentFits('project directory', project);
  assertComponentFits('session id', segment);
  return join(layout.root, project, segment, artifactFileName(layout.compression));
}
