/**
 * The reader of one source-cache entry file: a versioned, checksummed file per artifact. Line 1 names the format
 * and version, line 2 is the SHA-256 (hex) of the rest, the rest is the entry as JSON (byte arrays as base64). The
 * writer is the worker that scanned the source (`workers/tasks/source-cache-record.ts`): the main thread never encodes.
 * A file that fails any check — another format or version, a checksum mismatch, JSON or shape damage, another
 * artifact's key — is foreign: it is ignored and rebuilt, never trusted.
 */
import { createHash } from 'node:crypto';
import { SOURCE_CACHE_BYTES_TAG, SOURCE_CACHE_MAGIC, type SourceCacheRecord } from '../../../workers/tasks/source-cache-record.js';

function reviver(_key: string, value: unknown): unknown {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const tagged = (value as Record<string, unknown>)[SOURCE_CACHE_BYTES_TAG];
    if (keys.length === 1 && typeof tagged === 'string') return new Uint8Array(Buffer.from(tagged, 'base64'));
  }
  return value;
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
