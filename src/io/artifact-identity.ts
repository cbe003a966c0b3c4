/**
 * The identity rule of SESSION-LOG.md §9.5 (inspection stage R4, §9.15): the header must name the session that
 * was asked for, and the artifact must sit where its header's id and cwd say (the same path, or the same file
 * after resolving links). The store (listing, reads by id) and the pool's inspection task both check it here.
 */
import { realpath } from 'node:fs/promises';
import type { SessionLogError } from '../protocol/errors.js';
import { misplacedArtifactError, requestedIdMismatchError, unnameableHeaderError } from '../protocol/layout-errors.js';
import { artifactPathFor, type StoreLayout } from './artifact-path.js';
import { isMissingFile, storeIoError } from './regular-file.js';

/** The real path of `path`, or `undefined` when it does not exist; other failures are typed store I/O errors. */
async function realpathOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    throw storeIoError('resolve', path, error);
  }
}

/** How a header breaks the identity rule of §9.5, with the error that reports it. */
export interface IdentityViolation {
  readonly kind: 'unnameable' | 'misplaced';
  readonly error: SessionLogError;
}

/**
 * The identity rule of §9.5 as a check: `undefined` when the artifact at `path` is the one its header's id and
 * cwd name (the same path, or the same file after resolving links), else how it is not.
 *
 * @param layout - the root and encoding the artifact was found under.
 * @param path - where the artifact was found.
 * @param header - the artifact's header record (its `id` and `cwd` are read).
 * @throws a typed store I/O error when resolving a path fails for another reason than "missing".
 */
export async function identityViolation(
  layout: StoreLayout,
  path: string,
  header: Readonly<Record<string, unknown>>,
): Promise<IdentityViolation | undefined> {
  const { id, cwd } = header;
  let expected: string;
  try {
    if (typeof id !== 'string' || (cwd !== undefined && typeof cwd !== 'string')) throw new TypeError('unnameable');
    expected = artifactPathFor(layout, id, cwd);
  } catch {
    // An empty id or cwd (or a non-string or over-long one) cannot be encoded into a path: that is the error.
    return { kind: 'unnameable', error: unnameableHeaderError(path) };
  }
  if (path === expected) return undefined;
  const [actualReal, expectedReal] = await Promise.all([realpathOrUndefined(path), realpathOrUndefined(expected)]);
  if (actualReal === undefined || expectedReal === undefined || actualReal !== expectedReal) {
    return { kind: 'misplaced', error: misplacedArtifactError(path, id, expected) };
  }
  return undefined;
}

/**
 * The identity rule of §9.5: the artifact at `path` must be the one its header's id and cwd name.
 *
 * @throws SessionLogError `SESSION_LOG_CORRUPT` with the rule's exact texts; a typed store I/O error.
 */
export async function assertArtifactIdentity(layout: StoreLayout, path: string, header: Readonly<Record<string, unknown>>): Promise<void> {
  const violation = await identityViolation(layout, path, header);
  if (violation !== undefined) throw violation.error;
}

/**
 * Stage R4 of a read by id: the header's id is the requested one, and the identity rule holds for `path`.
 *
 * @param layout - the root and encoding the artifact was found under.
 * @param requestedId - the id the caller asked for.
 * @param path - where the lookup found the artifact.
 * @param header - the artifact's header record.
 * @throws SessionLogError `SESSION_LOG_CORRUPT` (requested id mismatch, unnameable or misplaced header); a typed
 *   store I/O error.
 */
export async function assertRequestedArtifact(
  layout: StoreLayout,
  requestedId: string,
  path: string,
  header: Readonly<Record<string, unknown>>,
): Promise<void> {
  const headerId = header['id'];
  if (headerId !== requestedId) throw requestedIdMismatchError(path, requestedId, String(headerId));
  await assertArtifactIdentity(layout, path, header);
}
