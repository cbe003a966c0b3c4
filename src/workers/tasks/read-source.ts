/**
 * The `readSource` task (ARCHITECTURE.md §2–§3, SESSION-REFERENCE.md §8 "Placement"): one reference
 * source read, folded, projected, retained and serialised in a worker. A persisted source is read from
 * its captured artifact and fully inspected (SESSION-LOG.md §9.15); a live source is decoded from the
 * captured prefix of its byte log. Only the source's data-object JSON and stats come back. A `scan` payload is the
 * source cache's read (scan-source.ts): projection steps and a resumable checkpoint instead of a rendering.
 */
import type { ReadSourcePayload, ReadSourceValue, ScanPersistedSourcePayload } from '../../protocol/wire/task-shapes.js';
import { renderProjected } from '../reference/render-projected.js';
import { buildCacheEntry } from './source-cache-record.js';
import { decodeLiveLogCapture } from '../../protocol/wire/live-log-codec.js';
import { inspectArtifact } from './inspect-artifact.js';
import { renderSurface } from './render-surface.js';
import { scanSource } from './scan-source.js';
import type { TaskControl } from './task-control.js';
import { runTask } from './task-request.js';
import type { TaskReply, TaskRequest } from './task-request.js';
import { assertNever } from '../../protocol/assert-never.js';

/**
 * The cache entry of a scanned source, built here (issue 27): folded, encoded and, when asked, rendered, so the
 * main thread neither folds nor encodes; the file bytes are moved, not copied. Steps that do not fit the kept
 * nodes answer `unscannable` (the caller reads the source uncached).
 */
function entryOf(
  entry: NonNullable<ScanPersistedSourcePayload['entry']>,
  value: Extract<ReadSourceValue, { status: 'scanned' }>,
  control: TaskControl,
): { value: ReadSourceValue; transfer: ArrayBuffer[] } {
  const built = buildCacheEntry(entry.key, value.header, value.scan, entry.base);
  if (built === undefined) return { value: { status: 'unscannable' }, transfer: [] };
  control.poll();
  const { header, balancedEvents } = built.record;
  const render =
    entry.render === null
      ? null
      : renderProjected(
          {
            sessionId: header.id,
            label: entry.render.label,
            cwd: header.cwd ?? null,
            capturedThroughSeq: balancedEvents === 0 ? null : balancedEvents - 1,
            items: built.items,
          },
          entry.render.maxBytes,
          control.pollFn,
        );
  // A small Buffer may share Node's pool: only a buffer of its own can be moved.
  const own = built.bytes.byteOffset === 0 && built.bytes.byteLength === built.bytes.buffer.byteLength ? built.bytes : built.bytes.slice();
  return {
    value: {
      status: 'entry',
      header,
      served: value.scan.served,
      record: built.record,
      items: built.items,
      estimatedBytes: built.estimatedBytes,
      bytes: own,
      render,
    },
    transfer: [own.buffer as ArrayBuffer],
  };
}

async function readSourceWork(payload: ReadSourcePayload, control: TaskControl): Promise<{ value: ReadSourceValue }> {
  switch (payload.source) {
    case 'persisted': {
      const request = { label: payload.label, maxBytes: payload.maxBytes, poll: control.pollFn };
      const session = await inspectArtifact(payload.artifact, control);
      return { value: renderSurface(session.meta, session.events, request) };
    }
    case 'live': {
      const request = { label: payload.label, maxBytes: payload.maxBytes, poll: control.pollFn };
      const events = decodeLiveLogCapture(payload.log, control.pollFn);
      return { value: renderSurface(payload.header, events, request) };
    }
    case 'scan': {
      const value = await scanSource(payload, control);
      return payload.entry === undefined || value.status !== 'scanned' ? { value } : entryOf(payload.entry, value, control);
    }
    default:
      assertNever(payload, 'unknown readSource source');
  }
}

/** Runs one `readSource` task. Inspection failures and the abort come back as the outcome's error. */
export function readSourceTask(request: TaskRequest<ReadSourcePayload>): Promise<TaskReply<ReadSourceValue>> {
  return runTask(request, readSourceWork);
}
