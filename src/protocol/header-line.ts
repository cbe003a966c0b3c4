/**
 * The header line of a session artifact (SESSION-LOG.md §9.6): how writers serialise it, which parsed
 * lines count as headers, how a header line becomes a header record, and how a full read parses the
 * first record (including the format-version refusal of §7.4).
 */
import { formatVersionRefusal } from './session-header.js';
import { SessionLogError } from './errors.js';
import { isNonNegativeSafeInteger, SESSION_FORMAT_VERSION } from './events.js';
import { isRecord } from './record-guard.js';
import type { SessionHeader } from './events.js';

/** A parsed first line that passed {@link isHeaderLine}. `cwd`/`parentSession` types are checked later (§7.2). */
export interface HeaderLine {
  readonly type: 'session';
  readonly version: number;
  readonly id: string;
  readonly createdAt: number;
  readonly cwd?: unknown;
  readonly parentSession?: unknown;
  readonly seedLength?: unknown;
  readonly origin?: 'subagent';
  readonly delegationDepth: number;
  readonly agentPreset?: string;
  readonly [key: string]: unknown;
}

/**
 * The header line a writer emits, without its LF (SESSION-LOG.md §9.6): keys `type, version, id,
 * createdAt, cwd?, parentSession?, seedLength?, origin?, delegationDepth, agentPreset?`; absent optional
 * fields are omitted, `delegationDepth` is always written (0 for a top-level session).
 */
export function serializeHeaderLine(header: SessionHeader): string {
  const line: Record<string, unknown> = {
    type: 'session',
    version: header.version,
    id: header.id,
    createdAt: header.createdAt,
  };
  if (header.cwd !== undefined) line['cwd'] = header.cwd;
  if (header.parentSession !== undefined) line['parentSession'] = header.parentSession;
  if (header.seedLength !== undefined) line['seedLength'] = header.seedLength;
  if (header.origin !== undefined) line['origin'] = header.origin;
  line['delegationDepth'] = header.delegationDepth ?? 0;
  if (header.agentPreset !== undefined) line['agentPreset'] = header.agentPreset;
  return JSON.stringify(line);
}

/** A non-negative safe integer that is not `-0` (the on-disk rule for `createdAt` and `delegationDepth`). */
function isStoredCount(value: unknown): boolean {
  return isNonNegativeSafeInteger(value) && !Object.is(value, -0);
}

/**
 * True when a parsed first line is a session header (SESSION-LOG.md §9.6): a record with
 * `type: 'session'`, a numeric `version`, a string `id`, `createdAt` and `delegationDepth` (required on
 * disk) non-negative safe integers other than `-0`, `origin` absent or `'subagent'`, `agentPreset` absent
 * or a string.
 */
export function isHeaderLine(value: unknown): value is HeaderLine {
  if (!isRecord(value)) return false;
  return (
    value['type'] === 'session' &&
    typeof value['version'] === 'number' &&
    typeof value['id'] === 'string' &&
    isStoredCount(value['createdAt']) &&
    isStoredCount(value['delegationDepth']) &&
    (value['origin'] === undefined || value['origin'] === 'subagent') &&
    (value['agentPreset'] === undefined || typeof value['agentPreset'] === 'string')
  );
}

/** Header fields copied from a header line, in header order. `delegationDepth` is always copied. */
const HEADER_FIELDS = [
  'version',
  'id',
  'createdAt',
  'cwd',
  'parentSession',
  'seedLength',
  'origin',
  'delegationDepth',
  'agentPreset',
] as const;

/**
 * Converts a header line into a header record (SESSION-LOG.md §9.6): the header fields in header order,
 * optional ones only when not `undefined`, `delegationDepth` always; other keys (and `type`) are dropped.
 * The result is not yet validated as a header (§7.2 runs later).
 *
 * @throws SessionLogError `SESSION_LOG_INVALID_HEADER`, `session header uses retired policy baseline fields`,
 *   when the line has an own `sandboxMode` or `approvalPolicy` key.
 */
export function headerRecordFromLine(value: Record<string, unknown>): Record<string, unknown> {
  if (Object.hasOwn(value, 'sandboxMode') || Object.hasOwn(value, 'approvalPolicy')) {
    throw new SessionLogError('SESSION_LOG_INVALID_HEADER', 'session header uses retired policy baseline fields');
  }
  const record: Record<string, unknown> = {};
  for (const field of HEADER_FIELDS) {
    const fieldValue = value[field];
    if (fieldValue !== undefined || field === 'delegationDepth') record[field] = fieldValue;
  }
  return record;
}

/**
 * Parses the first record of a full read (SESSION-LOG.md §9.6), given as decoded text including its LF:
 * 1. empty, not LF-terminated, or containing another LF → `empty or header-less session log`;
 * 2. not JSON → `corrupt session log: header line is not valid JSON`;
 * 3. a record with a numeric `version` ≠ 0 → the §7.4 refusal (before the shape check), with
 *    ` (raw log: <path>)` when `path` is given;
 * 4. not a header line → `corrupt session log: first line is not a session header`;
 * then converts the line with {@link headerRecordFromLine} (retired fields throw).
 *
 * @returns the header record (not yet validated by §7.2).
 * @throws SessionLogError (`SESSION_LOG_CORRUPT` for 1–2, `SESSION_LOG_INVALID_HEADER` for 4 and retired
 *   fields) or SessionFormatUnsupportedError for 3.
 */
export function parseHeaderRecord(text: string, path?: string): Record<string, unknown> {
  if (text.length === 0 || text.indexOf('\n') !== text.length - 1) {
    throw new SessionLogError('SESSION_LOG_CORRUPT', 'empty or header-less session log');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(0, -1));
  } catch (error) {
    throw new SessionLogError('SESSION_LOG_CORRUPT', 'corrupt session log: header line is not valid JSON', { cause: error });
  }
  // A future format need not satisfy today's shape rules; its reader must hear "upgrade", not "corrupt".
  if (isRecord(parsed) && typeof parsed['version'] === 'number' && parsed['version'] !== SESSION_FORMAT_VERSION) {
    throw formatVersionRefusal(parsed['id'], parsed['version'], path);
  }
  if (!isHeaderLine(parsed)) {
    throw new SessionLogError('SESSION_LOG_INVALID_HEADER', 'corrupt session log: first line is not a session header');
  }
  return headerRecordFromLine(parsed);
}
