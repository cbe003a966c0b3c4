/**
 * One source-cache entry as the worker that scanned its source builds it (issue 27 item 1): the record (what the
 * cache keeps per artifact) and its file bytes, encoded here so the main thread only holds and writes them. The
 * file format: line 1 names the format and version, line 2 is the SHA-256 (hex) of the rest, the rest is the
 * record as JSON (byte arrays as base64). The main thread's reader is `main/engine/cache/source-cache-file.ts`.
 */
import { createHash } from 'node:crypto';
import type { SessionHeader } from '../../protocol/events.js';
import type { ScanSourceResume, ScannedSource } from '../../protocol/wire/task-shapes.js';
import type { ProjectedItem } from '../reference/project-surface.js';
import { ProjectionFold, type ProjectionNode, type ProjectionStep } from '../reference/projection-fold.js';

/** Line 1 of every entry file. */
export const SOURCE_CACHE_MAGIC = 'sessionctx-source-cache 2';

/** The tag of a byte array in the JSON payload (`{"\u0000bytes": base64}`). */
export const SOURCE_CACHE_BYTES_TAG = '\u0000bytes';

/** The file revision an entry was computed for (decimal strings). */
export interface EntryRevision {
  readonly dev: string;
  readonly ino: string;
  readonly size: string;
  readonly ctimeNs: string;
}

/** What the cache keeps per artifact; see main/engine/cache/source-cache.ts. */
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

/** A built entry: the record, the answer's items, the estimated size in memory and the file bytes. */
export interface BuiltCacheEntry {
  readonly record: SourceCacheRecord;
  readonly items: ProjectedItem[];
  readonly estimatedBytes: number;
  readonly bytes: Uint8Array;
}

function replacer(_key: string, value: unknown): unknown {
  return value instanceof Uint8Array
    ? { [SOURCE_CACHE_BYTES_TAG]: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') }
    : value;
}

/** The file bytes of `record`. Runs in the worker that built the record (never on the main thread). */
export function encodeSourceCacheRecord(record: SourceCacheRecord): Buffer {
  const payload = JSON.stringify(record, replacer);
  const digest = createHash('sha256').update(payload, 'utf8').digest('hex');
  return Buffer.from(`${SOURCE_CACHE_MAGIC}\n${digest}\n${payload}`, 'utf8');
}

/** The answer of a record: its committed fold plus the provisional steps, as items. */
export function itemsOfRecord(record: SourceCacheRecord, fold: ProjectionFold): ProjectedItem[] {
  if (record.provisional.length === 0) return fold.items();
  const answer = ProjectionFold.of(fold.nodes());
  for (const step of record.provisional) answer.apply(step);
  return answer.items();
}

/** A rough size of an entry in memory: its texts (UTF-16) and a fixed cost per node and checkpoint node. */
export function estimateEntryBytes(record: SourceCacheRecord, items: readonly ProjectedItem[]): number {
  let bytes = 1024;
  for (const item of items) bytes += 2 * item.originalText.length + 48;
  bytes += 40 * record.nodes.length;
  const checkpoint = record.resume.checkpoint as { validator?: { surface?: { nodes?: readonly unknown[] } } };
  bytes += 120 * (checkpoint.validator?.surface?.nodes?.length ?? 0);
  return bytes;
}

/**
 * The entry of one scan: its steps folded onto `base` (the kept nodes, for an appended scan) or onto nothing (a cold
 * one), the record, its items and its file bytes; `undefined` when the steps do not fit `base` (a damaged entry).
 */
export function buildCacheEntry(
  key: string,
  header: SessionHeader,
  scan: ScannedSource,
  base: { readonly nodes: readonly ProjectionNode[]; readonly committedEvents: number } | null,
): BuiltCacheEntry | undefined {
  if (scan.served === 'appended' && (base === null || base.committedEvents !== scan.fromSeq)) return undefined;
  if (scan.served === 'cold' && scan.fromSeq !== 0) return undefined;
  try {
    const fold = scan.served === 'cold' || base === null ? ProjectionFold.empty() : ProjectionFold.of(base.nodes);
    const provisional: ProjectionStep[] = [];
    for (const step of scan.steps) {
      if (step.seq < scan.committedEvents) fold.apply(step);
      else provisional.push(step);
    }
    const record: SourceCacheRecord = {
      key,
      revision: scan.revision,
      tailDigest: scan.tailDigest,
      header,
      resume: scan.resume,
      committedEvents: scan.committedEvents,
      balancedEvents: scan.balancedEvents,
      nodes: fold.nodes(),
      provisional,
    };
    const items = itemsOfRecord(record, fold);
    const bytes = encodeSourceCacheRecord(record);
    return { record, items, estimatedBytes: estimateEntryBytes(record, items), bytes };
  } catch {
    // Steps that do not fit the kept fold: no entry (the caller reads the source uncached).
    return undefined;
  }
}
