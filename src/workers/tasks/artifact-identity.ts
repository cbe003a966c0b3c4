/**
 * Stage R4 of an inspection run inside a worker (SESSION-LOG.md §9.5, §9.15): the header must name the
 * session that was asked for and the artifact must sit where its header's id and cwd say. The texts are
 * those of the store's layout errors (src/main/store/layout-errors.ts), which a worker may not import;
 * test/pool/pooled-storage.test.ts pins both sides to the same messages.
 */
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { SessionLogError } from '../../protocol/errors.js';
import { artifactFileName, encodeSegment, projectDirName } from '../../protocol/storage-paths.js';
import type { ArtifactRef } from '../../protocol/wire/task-shapes.js';
import { isMissingFile, storeIoError } from './regular-file.js';

function corrupt(message: string): SessionLogError {
  return new SessionLogError('SESSION_LOG_CORRUPT', message);
}

async function realpathOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    throw storeIoError('resolve', path, error);
  }
}

/**
 * Stage R4: the requested id equals the header's, and the identity rule (§9.5) holds for `artifact.path`.
 *
 * @throws SessionLogError `SESSION_LOG_CORRUPT` with the store's exact texts.
 */
export async function assertArtifactIdentity(artifact: ArtifactRef, headerRecord: Readonly<Record<string, unknown>>): Promise<void> {
  const { path } = artifact;
  const { id, cwd } = headerRecord;
  if (id !== artifact.sessionId) {
    throw corrupt(`corrupt session log "${path}": requested id "${artifact.sessionId}" does not match header id "${String(id)}"`);
  }
  let expected: string;
  try {
    if (typeof id !== 'string' || (cwd !== undefined && typeof cwd !== 'string')) throw new TypeError('unnameable');
    expected = join(artifact.root, projectDirName(cwd), encodeSegment(id), artifactFileName(artifact.compression));
  } catch {
    // An empty id or cwd (or a non-string one) cannot be encoded into a path: that is the error.
    throw corrupt(`corrupt session log "${path}": header id cannot name a storage path`);
  }
  if (path === expected) return;
  const [actualReal, expectedReal] = await Promise.all([realpathOrUndefined(path), realpathOrUndefined(expected)]);
  if (actualReal === undefined || expectedReal === undefined || actualReal !== expectedReal) {
    throw corrupt(`corrupt session log "${path}": header id "${id}" and cwd identify "${expected}"`);
  }
}
