/**
 * The on-disk form of one source-cache entry: a versioned, checksummed file per artifact. Line 1 names the format
 * and version, line 2 is the SHA-256 (hex) of the rest, the rest is the entry as JSON (byte arrays as base64).
 * A file that fails any check — another format or version, a checksum mismatch, JSON or shape damage, another
 * artifact's key — is foreign: it is ignored and rebuilt, never trusted.
 */
import { createHash } from 'node:crypto';
import type { SessionHeader } from '../../../protocol/events.js';
import type { ScanSourceResume } from '../../../protocol/wire/task-shapes.js';
import type { ProjectionNode, ProjectionStep } from '../../../workers/reference/projection-fold.js';

/** Line 1 of every entry file. */
export const SOURCE_CACHE_MAGIC = 'sessionctx-source-cache 2';

/** The file revision an entry was computed for (decimal strings). */
export interface EntryRevision {
  readonly dev: string;
  readonly ino: string;
  readonly size: string;
  readonly ctimeNs: string;
}

/** What the cache keeps per artifact; see source-cache.ts. */
export interface SourceCacheRecord {
  /** compression, root, path and requested id, NUL-separated. */
  readonly key: string;
  readonly revision: EntryRevision;
  /** SHA-256 of the up to 4096 bytes ending at `revision.size`. */
  readonly tailDigest: string;
  readonly header: SessionHeader;
  readonly resume: ScanSourceResume;
  readonly committedEvents: number;
  readonly balancedEvents: number;
  /** The projection's surface nodes after the committed events. */
  readonly nodes: readonly ProjectionNode[];
  /** Steps of the events after the committed ones (a recovered torn tail): applied to a copy for the answer. */
  readonly provisional: readonly ProjectionStep[];
}

const BYTES_TAG = '\u0000bytes';

function replacer(_key: string, value: unknown): unknown {
  return value instanceof Uint8Array
    ? { [BYTES_TAG]: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') }
    : value;
}

function reviver(_key: string, value: unknown): unknown {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const tagged = (value as Record<string, unknown>)[BYTES_TAG];
    if (keys.length === 1 && typeof tagged === 'string') return new Uint8Array(Buffer.from(tagged, 'base64'));
  }
  return value;
}

/** The file bytes of `record`. */
export function encodeSourceCacheRecord(record: SourceCacheRecord): Buffer {
  const payload = JSON.stringify(record, replacer);
  const digest = createHash('sha256').update(payload, 'utf8').digest('hex');
  return Buffer.from(`${SOURCE_CACHE_MAGIC}\n${digest}\n${payload}`, 'utf8');
}

function isDecimal(value: unknown): value is string {
  return typeof value === 'string' && /^\d+$/.test(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function hasShape(value: unknown, key: string): value is SourceCacheRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  const revision = record['revision'] as Record<string, unknown> | null | undefined;
  const resume = record['resume'] as Record<string, unknown> | null | undefined;
  const header = record['header'] as Record<string, unknown> | null | undefined;
  return (
    record['key'] === key &&
    typeof revision === 'object' &&
    revision !== null &&
    isDecimal(revision['dev']) &&
    isDecimal(revision['ino']) &&
    isDecimal(revision['size']) &&
    isDecimal(revision['ctimeNs']) &&
    typeof record['tailDigest'] === 'string' &&
    typeof header === 'object' &&
    header !== null &&
    typeof header['id'] === 'string' &&
    typeof resume === 'object' &&
    resume !== null &&
    typeof resume['headerDigest'] === 'string' &&
    typeof resume['guard'] === 'string' &&
    typeof resume['checkpoint'] === 'object' &&
    resume['checkpoint'] !== null &&
    isCount(record['committedEvents']) &&
    isCount(record['balancedEvents']) &&
    Array.isArray(record['nodes']) &&
    Array.isArray(record['provisional'])
  );
}

/**
 * The record in `bytes` when they are an intact entry file for `key`, else `undefined`. Damage deeper than the
 * shape checked here (a checkpoint that does not fit) makes its use fail, which the cache treats as a miss.
 */
export function decodeSourceCacheRecord(bytes: Uint8Array, key: string): SourceCacheRecord | undefined {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const first = text.indexOf('\n');
  const second = first === -1 ? -1 : text.indexOf('\n', first + 1);
  if (second === -1 || text.slice(0, first) !== SOURCE_CACHE_MAGIC) return undefined;
  const payload = text.slice(second + 1);
  if (createHash('sha256').update(payload, 'utf8').digest('hex') !== text.slice(first + 1, second)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(payload, reviver);
  } catch {
    // Unparseable despite a matching checksum (written by something else): foreign, ignored.
    return undefined;
  }
  return hasShape(value, key) ? value : undefined;
}
