/**
 * Names of things in a session store (SESSION-LOG.md §9.2–§9.4): the escaped session-id path segment,
 * the lossy project directory key and the artifact file name. Pure string functions; joining them into
 * absolute paths is the store's job.
 */
import { SessionLogError } from './errors.js';
import { assertNever } from './assert-never.js';

/** The on-disk encoding of a store root (SESSION-LOG.md §9.1): one root holds one encoding. */
export type Compression = 'zstd' | 'none';

/** The project directory of sessions that have no cwd. */
export const NO_CWD_PROJECT_DIR = '_no-cwd';

/** Longest slug kept inside `--<slug>--`, so that the directory name stays within 255 code units. */
const MAX_SLUG_LENGTH = 251;

/** True for a code unit in `[A-Za-z0-9._-]`, the units both encoders keep literally. */
function isLiteralUnit(unit: number): boolean {
  return (
    (unit >= 0x61 && unit <= 0x7a) || // a-z
    (unit >= 0x41 && unit <= 0x5a) || // A-Z
    (unit >= 0x30 && unit <= 0x39) || // 0-9
    unit === 0x2e ||
    unit === 0x5f ||
    unit === 0x2d
  ); // . _ -
}

/** `~` followed by the unit as 4 uppercase hex digits. */
function escapeUnit(unit: number): string {
  return '~' + unit.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * Encodes a session id as one path segment (SESSION-LOG.md §9.3). Works per UTF-16 code unit, so the
 * mapping is injective over all strings, lone surrogates included; `.` and `..` are escaped so that a
 * segment can never walk the tree.
 *
 * @throws SessionLogError `SESSION_STORE_INVALID_PATH` for the empty string.
 */
export function encodeSegment(id: string): string {
  if (id.length === 0) throw new SessionLogError('SESSION_STORE_INVALID_PATH', 'cannot encode an empty path segment');
  if (id === '.') return '~002E';
  if (id === '..') return '~002E~002E';
  let out = '';
  for (let i = 0; i < id.length; i++) {
    const unit = id.charCodeAt(i);
    out += isLiteralUnit(unit) ? id.charAt(i) : escapeUnit(unit);
  }
  return out;
}

/**
 * The project directory name of a cwd, `--<slug>--` (SESSION-LOG.md §9.4). Lossy by design: separator
 * runs collapse to `-` and long paths are cut, so distinct cwds may share a directory (the session
 * directory below keeps them apart).
 *
 * @throws SessionLogError `SESSION_STORE_INVALID_PATH` for the empty string.
 */
export function projectKey(cwd: string): string {
  if (cwd.length === 0) throw new SessionLogError('SESSION_STORE_INVALID_PATH', 'cannot encode an empty project path');
  let readable = '';
  let inSeparatorRun = false;
  for (let i = 0; i < cwd.length; i++) {
    const unit = cwd.charCodeAt(i);
    if (unit === 0x2f || unit === 0x5c || unit === 0x3a) {
      // / \ :
      if (!inSeparatorRun) readable += '-';
      inSeparatorRun = true;
      continue;
    }
    inSeparatorRun = false;
    readable += isLiteralUnit(unit) ? cwd.charAt(i) : escapeUnit(unit);
  }
  let first = 0;
  while (first < readable.length && readable.charCodeAt(first) === 0x2d) first++;
  const slug = readable.slice(first) || 'root';
  return `--${slug.slice(0, MAX_SLUG_LENGTH)}--`;
}

/** The project directory of a session: `projectKey(cwd)`, or `_no-cwd` when the session has no cwd. */
export function projectDirName(cwd: string | undefined): string {
  return cwd === undefined ? NO_CWD_PROJECT_DIR : projectKey(cwd);
}

/** The transcript file name inside a session directory: `session.jsonl.zstd` or `session.jsonl`. */
export function artifactFileName(compression: Compression): string {
  switch (compression) {
    case 'zstd':
      return 'session.jsonl.zstd';
    case 'none':
      return 'session.jsonl';
    default:
      assertNever(compression, 'unknown compression');
  }
}
