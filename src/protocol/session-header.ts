/**
 * The session header (SESSION-LOG.md §7): validation of a restored header (§7.2), the compatibility of two
 * observations of one session (§7.3) and the refusal of a stored format version this build cannot read (§7.4).
 */
import { SessionFormatUnsupportedError, SessionLogError, SessionQueryError } from './errors.js';
import type { SessionHeader } from './events.js';
import { SESSION_FORMAT_VERSION } from './events.js';
import { deepFreeze } from './deep-freeze.js';

function headerError(message: string): SessionLogError {
  return new SessionLogError('SESSION_LOG_INVALID_HEADER', message);
}

function isNonNegativeSafeInteger(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * POSIX absoluteness, as `node:path`'s `posix.isAbsolute`: the path starts with `/`. dsh uses the host
 * platform's `path.isAbsolute`; this module is pure and targets POSIX hosts, so Windows drive and UNC paths
 * (valid on a Windows dsh host) are out of scope and rejected here.
 */
function isPosixAbsolute(path: string): boolean {
  return path.startsWith('/');
}

/**
 * Validates a restored session header for session `sessionId` (SESSION-LOG.md §7.2, first failure wins) and
 * returns it deep-frozen (the same object, as dsh does). Throws `SessionLogError`
 * (`SESSION_LOG_INVALID_HEADER`) with the exact §7.2 text. Only POSIX absolute `cwd`s are accepted (see
 * `isPosixAbsolute`).
 */
export function validateSessionHeader(header: unknown, sessionId: string): SessionHeader {
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw headerError('session header is not a plain JSON record');
  }
  const prototype: unknown = Reflect.getPrototypeOf(header);
  if (prototype !== Object.prototype && prototype !== null) {
    throw headerError('session header is not a plain JSON record');
  }
  const record = header as Readonly<Record<string, unknown>>;
  if (record['version'] !== SESSION_FORMAT_VERSION) {
    throw headerError(`session header version must be ${SESSION_FORMAT_VERSION}, got ${String(record['version'])}`);
  }
  if (record['id'] !== sessionId) {
    throw headerError(`session header id "${String(record['id'])}" does not match session id "${sessionId}"`);
  }
  if (!isNonNegativeSafeInteger(record['createdAt'])) {
    throw headerError('session header createdAt must be a non-negative safe integer');
  }
  const cwd = record['cwd'];
  if (cwd !== undefined) {
    if (typeof cwd !== 'string') throw headerError('session header cwd must be a string');
    if (!isPosixAbsolute(cwd)) throw headerError(`session header cwd must be an absolute path, got "${cwd}"`);
  }
  if (record['parentSession'] !== undefined && typeof record['parentSession'] !== 'string') {
    throw headerError('session header parentSession must be a string');
  }
  if (record['seedLength'] !== undefined && !isNonNegativeSafeInteger(record['seedLength'])) {
    throw headerError('session header seedLength must be a non-negative safe integer');
  }
  if (record['origin'] !== undefined && record['origin'] !== 'subagent') {
    throw headerError('session header origin must be "subagent"');
  }
  if (record['delegationDepth'] !== undefined && !isNonNegativeSafeInteger(record['delegationDepth'])) {
    throw headerError('session header delegationDepth must be a non-negative safe integer');
  }
  if (record['agentPreset'] !== undefined && typeof record['agentPreset'] !== 'string') {
    throw headerError('session header agentPreset must be a string');
  }
  return deepFreeze(header as SessionHeader);
}

/**
 * Throws unless two observations of one session carry compatible headers (SESSION-LOG.md §7.3): equal
 * `version`, `id`, `createdAt`, `cwd`, `parentSession`, `seedLength` (strict, absent ≠ present) and equal
 * `delegationDepth ?? 0`; `origin` and `agentPreset` are not compared. The error is a `SessionQueryError`
 * with code `SESSION_QUERY_SOURCE_CONFLICT`.
 */
export function assertCompatibleHeaders(a: SessionHeader, b: SessionHeader): void {
  const compatible =
    a.version === b.version &&
    a.id === b.id &&
    a.createdAt === b.createdAt &&
    a.cwd === b.cwd &&
    a.parentSession === b.parentSession &&
    a.seedLength === b.seedLength &&
    (a.delegationDepth ?? 0) === (b.delegationDepth ?? 0);
  if (!compatible) {
    throw new SessionQueryError('SESSION_QUERY_SOURCE_CONFLICT', `session source headers conflict for session "${a.id}"`);
  }
}

/**
 * The refusal of a stored header whose format version is not 0 (SESSION-LOG.md §7.4): a newer version asks
 * for a harness upgrade, an older one states that no upgrade path ships. `id` is rendered with `String`
 * (the header's id when it is a string); ` (raw log: <path>)` is appended when the artifact path is known.
 */
export function formatVersionRefusal(id: unknown, version: number, path?: string): SessionFormatUnsupportedError {
  const shownId = typeof id === 'string' ? id : String(id);
  const reason =
    version > SESSION_FORMAT_VERSION
      ? `session "${shownId}" uses log format v${version}, but this harness reads only v${SESSION_FORMAT_VERSION}: the log was written by a newer harness — upgrade the harness to open it`
      : `session "${shownId}" uses log format v${version}, older than the supported v${SESSION_FORMAT_VERSION}, and this build ships no upgrade path for it`;
  return new SessionFormatUnsupportedError(path === undefined ? reason : `${reason} (raw log: ${path})`);
}
