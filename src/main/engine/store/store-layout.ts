/**
 * Walking a root (SESSION-LOG.md §9.13 steps 1–3, §9.14): session directories, the single-encoding check and the
 * lookup by id. The path a header names and the identity rule (§9.5) are `io/artifact-path.ts` and
 * `io/artifact-identity.ts`, shared with the pool tasks. File-system failures leave as typed store I/O errors
 * (`storeIoError`); a missing entry is "absent", as in dsh.
 */
import { listDirectory, statPath } from '../../../io/callback-fs.js';
import type { Dirent } from 'node:fs';
import { join } from 'node:path';
import { artifactFileName, encodeSegment } from '../../../protocol/storage-paths.js';
import type { Compression } from '../../../protocol/storage-paths.js';
import { assertComponentFits, MAX_COMPONENT_BYTES } from '../../../io/artifact-path.js';
import { storeIoError, systemErrorCode } from '../../../io/regular-file.js';
import type { JsonlStoreConfig } from './store-config.js';
import { settleInOrder } from './ordered-settle.js';
import { isMissingFile } from '../../../io/regular-file.js';
import { duplicateIdError, encodingMismatchError, flatLayoutError, oppositeSuffix } from '../../../protocol/layout-errors.js';

/** The name of the other encoding's artifact. */
export function oppositeArtifactName(compression: Compression): string {
  return `session${oppositeSuffix(compression)}`;
}

/** True when a file name looks like a transcript (flat-file layout detection). */
export function isTranscriptName(name: string): boolean {
  return name.endsWith('.jsonl') || name.endsWith('.jsonl.zstd');
}

/** The session-directory name a flat transcript file's name stands for (`<segment>.jsonl[.zstd]`). */
export function flatTranscriptSegment(name: string): string {
  return name.endsWith('.jsonl.zstd') ? name.slice(0, -'.jsonl.zstd'.length) : name.slice(0, -'.jsonl'.length);
}

/** True for a failure that means "not permitted here" (EACCES, EPERM), raw or wrapped. */
export function isAccessDenied(error: unknown): boolean {
  const code = systemErrorCode(error);
  return code === 'EACCES' || code === 'EPERM';
}

/** Directory entries, or an empty list when the directory does not exist; other failures are typed. */
export async function readDirectory(path: string): Promise<Dirent[]> {
  try {
    return await listDirectory(path, { withFileTypes: true });
  } catch (error) {
    if (isMissingFile(error)) return [];
    throw storeIoError('list directory', path, error);
  }
}

/** True when a path exists (any kind of entry); a failure other than "missing" is typed. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await statPath(path);
    return true;
  } catch (error) {
    if (isMissingFile(error)) return false;
    throw storeIoError('stat', path, error);
  }
}

/** One session directory found by a walk of the root. */
export interface SessionDirectory {
  readonly projectPath: string;
  readonly sessionPath: string;
}

/**
 * The project directories of a root and, for each, its session directories. A transcript file
 * directly in a project directory fails the walk (flat-file layout, §9.13 step 3).
 */
export async function walkSessionDirectories(root: string, signal?: AbortSignal): Promise<SessionDirectory[]> {
  const out: SessionDirectory[] = [];
  signal?.throwIfAborted();
  const projects = (await readDirectory(root)).filter((entry) => entry.isDirectory());
  for (const project of projects) {
    signal?.throwIfAborted();
    const projectPath = join(root, project.name);
    const entries = await readDirectory(projectPath);
    for (const entry of entries) {
      if (entry.isFile() && isTranscriptName(entry.name)) throw flatLayoutError(join(projectPath, entry.name));
    }
    for (const entry of entries) {
      if (entry.isDirectory()) out.push({ projectPath, sessionPath: join(projectPath, entry.name) });
    }
  }
  return out;
}

/**
 * Fails when any session directory holds an artifact of the other encoding (§9.13 step 1).
 * Project directories that are files are ignored here; the listing walk reports flat files.
 */
export async function assertSingleEncoding(config: JsonlStoreConfig): Promise<void> {
  const opposite = oppositeArtifactName(config.compression);
  for (const project of (await readDirectory(config.root)).filter((entry) => entry.isDirectory())) {
    const projectPath = join(config.root, project.name);
    for (const session of (await readDirectory(projectPath)).filter((entry) => entry.isDirectory())) {
      const candidate = join(projectPath, session.name, opposite);
      if (await pathExists(candidate)) throw encodingMismatchError(candidate, config.compression);
    }
  }
}

/**
 * Finds the artifact of one id (§9.14): a flat file or an opposite-encoding artifact throws, two
 * artifacts are a duplicate, none is `undefined`. An id whose encoded segment exceeds the 255-byte component
 * limit fails with `SESSION_STORE_INVALID_PATH` before any file-system call.
 *
 * Only paths of this id are looked at, so other sessions' damage never matters. In tolerant listing mode a
 * project directory that cannot be searched (its own `stat`s fail with EACCES/EPERM) is skipped as well: it
 * belongs to whichever sessions it holds, not to this lookup. In strict mode (dsh) it fails the lookup.
 */
export async function locateArtifact(config: JsonlStoreConfig, id: string, signal?: AbortSignal): Promise<string | undefined> {
  const segment = encodeSegment(id);
  assertComponentFits('session id', segment);
  const projects = (await readDirectory(config.root)).filter((entry) => entry.isDirectory());
  // Every project directory's `stat`s run a few dozen at a time (400 projects one after another were 70–145 ms of a
  // citation); the outcomes are taken in directory order, so the first failure in that order is the one thrown,
  // exactly as a lookup one project at a time throws it.
  const outcomes = await settleInOrder(projects, LOOKUPS_IN_FLIGHT, (project) => {
    signal?.throwIfAborted();
    return lookInProject(config, join(config.root, project.name), segment);
  });
  signal?.throwIfAborted();
  const found: string[] = [];
  for (const outcome of outcomes) {
    // Unreachable: settleInOrder leaves gaps only after the first failure, which is thrown before them.
    if (outcome === undefined) throw new Error('lookup outcome missing before the first failure');
    if (outcome.status === 'rejected') throw outcome.reason;
    if (outcome.value !== undefined) found.push(outcome.value);
  }
  if (found.length > 1) throw duplicateIdError(id);
  return found[0];
}

/** Project directories searched at once by {@link locateArtifact}. */
const LOOKUPS_IN_FLIGHT = 32;

/**
 * §9.14 in one project directory: the id's artifact there, or `undefined`; a flat file of the id or an
 * opposite-encoding artifact throws. A tolerant lookup passes over a directory it may not search.
 */
async function lookInProject(config: JsonlStoreConfig, projectPath: string, segment: string): Promise<string | undefined> {
  for (const flat of [`${segment}.jsonl`, `${segment}.jsonl.zstd`]) {
    // A flat name past the component limit cannot exist (and its stat would fail with ENAMETOOLONG).
    if (Buffer.byteLength(flat, 'utf8') > MAX_COMPONENT_BYTES) continue;
    const flatPath = join(projectPath, flat);
    let flatFile: boolean;
    try {
      flatFile = await isFile(flatPath);
    } catch (error) {
      // A flat file's stat needs search permission on the project directory only, so a refusal here is the
      // project directory's problem: skip it when tolerant.
      if (config.listing === 'tolerant' && isAccessDenied(error)) return undefined;
      throw error;
    }
    if (flatFile) throw flatLayoutError(flatPath);
  }
  const opposite = join(projectPath, segment, oppositeArtifactName(config.compression));
  if (await pathExists(opposite)) throw encodingMismatchError(opposite, config.compression);
  const artifact = join(projectPath, segment, artifactFileName(config.compression));
  return (await pathExists(artifact)) ? artifact : undefined;
}

/** True when `path` is a regular file (following links); missing is `false`, other failures are typed. */
async function isFile(path: string): Promise<boolean> {
  try {
    return (await statPath(path)).isFile();
  } catch (error) {
    if (isMissingFile(error)) return false;
    throw storeIoError('stat', path, error);
  }
}

/** Tracks ids during a listing and fails on the second occurrence (§9.13 step 7). */
export class DuplicateIdGuard {
  private readonly seen = new Set<string>();

  /** Records an id; throws the duplicate error when it was seen before. */
  add(id: string): void {
    if (this.seen.has(id)) throw duplicateIdError(id);
    this.seen.add(id);
  }
}
