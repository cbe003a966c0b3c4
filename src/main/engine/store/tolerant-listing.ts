/**
 * The tolerant listing (the store's default, `listing: 'tolerant'`): the walk and per-directory checks of
 * SESSION-LOG.md §9.13, except that whatever makes dsh fail the whole listing — and whatever dsh skips
 * silently although it is damage — skips only the entry concerned and is reported as a {@link ListingProblem}.
 * Healthy sessions stay listed. Only the root itself failing (unreadable) still fails the listing: then no
 * session can be listed at all.
 */
import { listDirectory, lstatPath } from '../../../io/callback-fs.js';
import type { Dirent } from 'node:fs';
import { basename, join } from 'node:path';
import { asSessionId } from '../../../protocol/events.js';
import type { SessionHeader } from '../../../protocol/events.js';
import { SessionFormatUnsupportedError, SessionLogError } from '../../../protocol/errors.js';
import { artifactFileName, encodeSegment } from '../../../protocol/storage-paths.js';
import type { Compression } from '../../../protocol/storage-paths.js';
import { isMissingFile, storeIoError } from '../../../io/regular-file.js';
import { identityViolation } from '../../../io/artifact-identity.js';
import type { ListedHeaderOutcome } from './header-reader.js';
import { duplicateIdError, encodingMismatchError, flatLayoutError } from '../../../protocol/layout-errors.js';
import type { ListingProblem, ListingProblemCode } from '../../../protocol/listing-problem.js';
import type { JsonlStoreConfig } from './store-config.js';
import {
  flatTranscriptSegment,
  isTranscriptName,
  oppositeArtifactName,
  pathExists,
  readDirectory,
  type SessionDirectory,
} from './store-layout.js';
import { assertNever } from '../../../protocol/assert-never.js';
import { CHEAP_STEP_CLOCK_EVERY, TimeSlice } from '../../../io/time-slice.js';

/** What the tolerant walk of a root found. */
export interface TolerantWalk {
  /** Every session directory of every readable project directory, in walk order. */
  readonly directories: readonly SessionDirectory[];
  /** Project directories that could not be read, and flat transcript files. */
  readonly problems: readonly ListingProblem[];
  /** Segment names of flat transcript files: a lookup of such an id must run (it fails with the flat-file text). */
  readonly flatSegments: ReadonlySet<string>;
  /** False when a project directory could not be read, so the session directories it holds are unknown. */
  readonly complete: boolean;
}

/** One problem. */
export function listingProblem(path: string, code: ListingProblemCode, message: string): ListingProblem {
  return { path, code, message };
}

/**
 * The problem a failure of one entry's checks is reported as. The signal's reason is rethrown (an aborted
 * listing rejects, it does not report), and so is anything that is not one of the store's typed errors: that
 * is a defect, not damage on disk.
 */
export function problemOfError(path: string, error: unknown, signal: AbortSignal | undefined): ListingProblem {
  signal?.throwIfAborted();
  if (error instanceof SessionLogError) {
    switch (error.code) {
      case 'SESSION_STORE_NOT_A_FILE':
      case 'SESSION_STORE_ACCESS_DENIED':
      case 'SESSION_STORE_IO_FAILED':
        return listingProblem(path, error.code, error.message);
      default:
        // Every other code a header read throws is about the header's bytes (frame, checksum, line, fields).
        return listingProblem(path, 'SESSION_STORE_CORRUPT_HEADER', error.message);
    }
  }
  if (error instanceof SessionFormatUnsupportedError) return listingProblem(path, 'SESSION_STORE_CORRUPT_HEADER', error.message);
  throw error;
}

/**
 * Steps 2–3 of §9.13, tolerantly: the root's directories are project directories; one that cannot be read is a
 * problem (its sessions are unknown), a flat transcript file in one is a problem, and every subdirectory is a
 * session directory. A root that cannot be read throws a typed store I/O error; a missing root has no sessions.
 */
export async function walkTolerant(root: string, signal?: AbortSignal): Promise<TolerantWalk> {
  signal?.throwIfAborted();
  const directories: SessionDirectory[] = [];
  const problems: ListingProblem[] = [];
  const flatSegments = new Set<string>();
  let complete = true;
  const projects = (await readDirectory(root)).filter((entry) => entry.isDirectory());
  for (const project of projects) {
    signal?.throwIfAborted();
    const walked = await walkProject(join(root, project.name), signal);
    directories.push(...walked.directories);
    problems.push(...walked.problems);
    for (const segment of walked.flatSegments) flatSegments.add(segment);
    if (!walked.readable) complete = false;
  }
  return { directories, problems, flatSegments, complete };
}

/** What the tolerant walk of one project directory found (one step of {@link walkTolerant}). */
export interface ProjectWalk {
  /** Its session directories, in directory order. */
  readonly directories: readonly SessionDirectory[];
  /** The project directory itself when it cannot be read, and its flat transcript files. */
  readonly problems: readonly ListingProblem[];
  /** Segment names of its flat transcript files. */
  readonly flatSegments: readonly string[];
  /** False when the directory exists but could not be read (its session directories are unknown). */
  readonly readable: boolean;
}

/**
 * Step 3 of §9.13 for one project directory, tolerantly: every subdirectory is a session directory, a flat
 * transcript file is a problem, an unreadable directory is a problem, a vanished one is empty. Shared by
 * {@link walkTolerant} and the corpus view, which re-walks only the project directories that changed.
 */
export async function walkProject(projectPath: string, signal?: AbortSignal): Promise<ProjectWalk> {
  let entries: Dirent[];
  try {
    entries = await listDirectory(projectPath, { withFileTypes: true });
  } catch (error) {
    // Removed since the root was read: nothing to list, nothing damaged.
    if (isMissingFile(error)) return { directories: [], problems: [], flatSegments: [], readable: true };
    return {
      directories: [],
      problems: [problemOfError(projectPath, storeIoError('list directory', projectPath, error), signal)],
      flatSegments: [],
      readable: false,
    };
  }
  signal?.throwIfAborted();
  const problems: ListingProblem[] = [];
  const flatSegments: string[] = [];
  for (const entry of entries) {
    if (entry.isFile() && isTranscriptName(entry.name)) {
      const flat = join(projectPath, entry.name);
      problems.push(listingProblem(flat, 'SESSION_STORE_FLAT_LAYOUT', flatLayoutError(flat).message));
      flatSegments.push(flatTranscriptSegment(entry.name));
    }
  }
  const directories: SessionDirectory[] = [];
  for (const entry of entries) {
    if (entry.isDirectory()) directories.push({ projectPath, sessionPath: join(projectPath, entry.name) });
  }
  return { directories, problems, flatSegments, readable: true };
}

/**
 * Where a tolerant listing found session directories: segment → the project directories holding a session
 * directory of that name, restricted to segments a title lookup may answer from the listing.
 */
export type ListedSegments = ReadonlyMap<string, readonly string[]>;

/**
 * The artifact path `locateArtifact` finds for `id` when the listing of `segments` saw exactly one session directory
 * of its segment; `undefined` when unsure (no segments, no or several such directories): the caller looks the id up.
 */
export function listedArtifactPath(segments: ListedSegments | undefined, id: string, artifactName: string): string | undefined {
  if (segments === undefined || id === '') return undefined;
  const segment = encodeSegment(id);
  const projects = segments.get(segment);
  if (projects === undefined || projects.length !== 1) return undefined;
  return join(projects[0] as string, segment, artifactName);
}

/** A tolerant listing put together from its walk and the check of each session directory. */
export interface AssembledListing {
  /** The listed headers, in walk order. */
  readonly headers: SessionHeader[];
  /** Every problem, sorted by path. */
  readonly problems: ListingProblem[];
  /** Where the listing found each segment, or `undefined` when a lookup may not answer from it (an unreadable project). */
  readonly segments: ListedSegments | undefined;
}

/** A listed header record as the header it is (the id typed as a session id). */
export function listedHeader(record: Record<string, unknown>): SessionHeader {
  return { ...record, id: asSessionId(record['id'] as string) } as unknown as SessionHeader;
}

/**
 * Steps 6–8 of §9.13, tolerantly, after every session directory was checked: duplicates reported for every
 * artifact and listed for none, problems sorted by path, and the segments a title lookup may answer from.
 * `outcomes[i]` is the check of `walk.directories[i]`. Its result depends on its inputs only (however it is
 * sliced), so the store's listing and the corpus view's incremental one cannot drift apart.
 * In time slices with a hop between them (issue 27 item 6: at 5,000 sessions the assembly was a 10 ms stretch).
 * @param headerOf - how a listed header record becomes a header (default {@link listedHeader}); the corpus view
 *   passes a memo so an unchanged session keeps its header object across refreshes
 * @param slice - the time slice to run in (default a fresh one; the corpus view passes the one its assembly runs in,
 *   so the two steps share one budget)
 */
export async function assembleTolerantListing(
  walk: TolerantWalk,
  outcomes: readonly DirectoryListing[],
  headerOf: (record: Record<string, unknown>) => SessionHeader = listedHeader,
  slice: TimeSlice = new TimeSlice({ clockEvery: CHEAP_STEP_CLOCK_EVERY }),
): Promise<AssembledListing> {
  const problems: ListingProblem[] = [...walk.problems];
  // Segments a title lookup may not answer from this listing: it must look the id up (and meet its error).
  const unsure = new Set<string>(walk.flatSegments);
  const listed: { artifact: string; record: Record<string, unknown> }[] = [];
  const artifactsById = new Map<string, string[]>();
  for (const [index, dir] of walk.directories.entries()) {
    if (slice.due()) await slice.hop();
    const value = outcomes[index];
    // Unreachable: the caller checks every directory of the walk.
    if (value === undefined) throw new Error('listing outcome missing for a walked directory');
    switch (value.kind) {
      case 'skipped':
        break;
      case 'problem':
        problems.push(value.problem);
        if (value.segmentUnsure) unsure.add(basename(dir.sessionPath));
        break;
      case 'listed': {
        const id = value.record['id'] as string;
        const paths = artifactsById.get(id);
        if (paths === undefined) artifactsById.set(id, [value.artifact]);
        else paths.push(value.artifact);
        listed.push(value);
        break;
      }
      default:
        assertNever(value, 'unknown directory listing');
    }
  }
  const headers: SessionHeader[] = [];
  for (const { artifact, record } of listed) {
    if (slice.due()) await slice.hop();
    const id = record['id'] as string;
    if ((artifactsById.get(id)?.length ?? 0) > 1) {
      problems.push(listingProblem(artifact, 'SESSION_STORE_DUPLICATE_ID', duplicateIdError(id).message));
      continue;
    }
    headers.push(headerOf(record));
  }
  problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // A lookup from this listing must find what locateArtifact finds: not when a project directory was unreadable
  // (its session directories are unknown), nor for a segment whose lookup would fail.
  if (!walk.complete) return { headers, problems, segments: undefined };
  const segments = new Map<string, string[]>();
  for (const dir of walk.directories) {
    if (slice.due()) await slice.hop();
    const segment = basename(dir.sessionPath);
    if (unsure.has(segment)) continue;
    const projects = segments.get(segment);
    if (projects === undefined) segments.set(segment, [dir.projectPath]);
    else projects.push(dir.projectPath);
  }
  return { headers, problems, segments };
}

/** What the tolerant check of one session directory found. */
export type DirectoryListing =
  | { readonly kind: 'listed'; readonly artifact: string; readonly record: Record<string, unknown> }
  /** `segmentUnsure`: a lookup of this directory's id must run itself (it would fail, not find this artifact). */
  | { readonly kind: 'problem'; readonly problem: ListingProblem; readonly segmentUnsure: boolean }
  /** No artifact here (dsh skips the directory too). */
  | { readonly kind: 'skipped' };

const SKIPPED: DirectoryListing = Object.freeze({ kind: 'skipped' });

function problem(path: string, code: ListingProblemCode, message: string, segmentUnsure = false): DirectoryListing {
  return { kind: 'problem', problem: listingProblem(path, code, message), segmentUnsure };
}

/** The inspection's text for a header that ends too early (§9.6, §9.9). */
function incompleteHeaderText(compression: Compression): string {
  return compression === 'zstd' ? 'empty or header-less Zstandard session log' : 'empty or header-less session log';
}

/**
 * Step 4–6 of §9.13 for one session directory, tolerantly: an opposite-encoding artifact, a header that cannot
 * be read or is not a header, a non-regular or unreadable artifact, a dangling link and an identity violation
 * are each one problem. `readHeader` reads (or answers from the listing cache) the header of the artifact.
 */
export async function listSessionDirectory(
  config: JsonlStoreConfig,
  dir: SessionDirectory,
  readHeader: (artifact: string) => Promise<ListedHeaderOutcome>,
  signal: AbortSignal | undefined,
): Promise<DirectoryListing> {
  const name = artifactFileName(config.compression);
  const artifact = join(dir.sessionPath, name);
  let entries: string[];
  try {
    entries = await listDirectory(dir.sessionPath);
  } catch (error) {
    if (isMissingFile(error)) return SKIPPED;
    return {
      kind: 'problem',
      problem: problemOfError(dir.sessionPath, storeIoError('list directory', dir.sessionPath, error), signal),
      segmentUnsure: false,
    };
  }
  signal?.throwIfAborted();
  const oppositeName = oppositeArtifactName(config.compression);
  const opposite = join(dir.sessionPath, oppositeName);
  try {
    // Decided by `stat`, as the strict listing and the lookup decide it (a dangling link of that name is absent).
    if (entries.includes(oppositeName) && (await pathExists(opposite))) {
      return problem(opposite, 'SESSION_STORE_MIXED_ENCODING', encodingMismatchError(opposite, config.compression).message, true);
    }
  } catch (error) {
    return { kind: 'problem', problem: problemOfError(opposite, error, signal), segmentUnsure: true };
  }
  if (!entries.includes(name)) return SKIPPED;
  try {
    const outcome = await readHeader(artifact);
    signal?.throwIfAborted();
    switch (outcome.kind) {
      case 'header': {
        const violation = await identityViolation(config, artifact, outcome.header.record);
        signal?.throwIfAborted();
        if (violation === undefined) return { kind: 'listed', artifact, record: outcome.header.record };
        return violation.kind === 'unnameable'
          ? problem(artifact, 'SESSION_STORE_UNNAMEABLE_HEADER', violation.error.message)
          : problem(artifact, 'SESSION_STORE_MISPLACED_ARTIFACT', violation.error.message);
      }
      case 'missing':
        return await missingArtifact(artifact);
      case 'incomplete':
        return problem(artifact, 'SESSION_STORE_INCOMPLETE_HEADER', incompleteHeaderText(config.compression));
      case 'not-a-header':
        return problem(artifact, 'SESSION_STORE_CORRUPT_HEADER', outcome.message);
      default:
        assertNever(outcome, 'unknown header outcome');
    }
  } catch (error) {
    return { kind: 'problem', problem: problemOfError(artifact, error, signal), segmentUnsure: false };
  }
}

/**
 * The directory lists the artifact's name but opening it found nothing: a dangling symbolic link is damage; an
 * artifact removed since the directory was read is simply gone.
 */
async function missingArtifact(artifact: string): Promise<DirectoryListing> {
  try {
    if ((await lstatPath(artifact)).isSymbolicLink()) {
      return problem(
        artifact,
        'SESSION_STORE_BROKEN_LINK',
        `session store: ${JSON.stringify(artifact)} is a symbolic link to a missing file`,
      );
    }
  } catch (error) {
    if (isMissingFile(error)) return SKIPPED;
    return { kind: 'problem', problem: problemOfError(artifact, storeIoError('stat', artifact, error), undefined), segmentUnsure: false };
  }
  return SKIPPED;
}
