/**
 * Transport benchmark (ARCHITECTURE.md §2 "msgpackr … Measure it against structured clone in a
 * benchmark and keep the winner per payload kind"). Structured clone is measured with `v8.serialize` /
 * `v8.deserialize`, the ValueSerializer format `postMessage` uses; each half runs on the thread named in
 * the row. Payload kinds:
 *
 * - live-log events, main → worker, per capture: cloning the event array vs the byte log (each event
 *   encoded once at append time, a capture is a length);
 * - inspection events (`inspect` task), worker → main: clone vs msgpackr entries in a transferred buffer;
 * - `readSource` results, worker → main: clone vs msgpackr of the small result object.
 */
import { deserialize, serialize } from 'node:v8';
import { Packr, Unpackr } from 'msgpackr';
import { LiveByteLog } from '../src/main/engine/live/live-byte-log.js';
import { decodeLiveLogCapture } from '../src/protocol/wire/live-log-codec.js';
import { decodeLogEntries, encodeLogEntries, forEachLogEntry } from '../src/protocol/wire/log-entry-codec.js';
import { markdownTable, measure } from './support/measure.js';
import type { MeasuredRow } from './support/measure.js';
import { syntheticSession } from './support/synthetic-session.js';

function row(rows: readonly MeasuredRow[], name: string): MeasuredRow {
  return rows.find((candidate) => candidate.name === name) as MeasuredRow;
}

/** Like `markdownTable`, in microseconds, for payloads that take well under a millisecond. */
function microTable(rows: readonly MeasuredRow[], baseline: string): string {
  const base = row(rows, baseline);
  const lines = ['| contender | median µs | min–max µs | runs | ratio to ' + baseline + ' |', '|---|---:|---:|---:|---:|'];
  for (const item of rows) {
    lines.push(
      `| ${item.name} | ${(item.medianMs * 1000).toFixed(1)} | ${(item.minMs * 1000).toFixed(1)}–${(item.maxMs * 1000).toFixed(1)} | ${item.samples} | ${(item.medianMs / base.medianMs).toFixed(2)} |`,
    );
  }
  return lines.join('\n');
}

/** Runs the transport comparison and returns its markdown report. */
export async function runTransport(): Promise<string> {
  const { events } = syntheticSession({
    id: 'bench-transport',
    cwd: '/bench/transport',
    turns: 400,
    textBytes: 1024,
    toolCallsPerTurn: 2,
    chunksPerAnswer: 24,
  });
  const jsonBytes = events.reduce((total, event) => total + JSON.stringify(event).length + 1, 0);

  const log = new LiveByteLog();
  const appendStart = performance.now();
  for (const event of events) log.append(event);
  const appendMs = performance.now() - appendStart;
  const cloned = serialize(events);
  const entries = encodeLogEntries(events);
  const capture = log.capture();

  const live = await measure(
    {
      'main: structured clone of the log per capture (serialize)': () => serialize(events),
      'main: byte-log capture (O(1))': () => log.capture(),
      'worker: structured clone receive (deserialize)': () => deserialize(cloned),
      'worker: msgpackr decode of the captured prefix (chunks copied to local memory first)': () => decodeLiveLogCapture(capture),
      'worker: msgpackr decode in place from the shared chunks (rejected)': () => {
        capture.sealed.buffers.forEach((buffer, index) =>
          forEachLogEntry(new Uint8Array(buffer), () => undefined, { end: capture.sealed.lengths[index] ?? 0 }),
        );
        forEachLogEntry(new Uint8Array(capture.tail), () => undefined, { end: capture.tailLength });
      },
    },
    { iterations: 20, timeMs: 2000 },
  );

  const inspect = await measure(
    {
      'worker: structured clone send (serialize)': () => serialize(events),
      'worker: msgpackr encode (entries)': () => encodeLogEntries(events),
      'main: structured clone receive (deserialize)': () => deserialize(cloned),
      'main: msgpackr decode (entries)': () => decodeLogEntries(entries),
    },
    { iterations: 20, timeMs: 2000 },
  );

  const result = {
    ok: true,
    value: {
      status: 'rendered',
      header: { version: 0, id: 'bench-transport', createdAt: 1, cwd: '/bench/transport' },
      render: {
        fits: true,
        sessionId: 'bench-transport',
        capturedThroughSeq: events.length - 1,
        json: JSON.stringify(events.slice(0, 60)).slice(0, 64 * 1024),
        stats: { compacted: false, originalMessages: 800, retainedMessages: 40, omittedMessages: 760, omittedBytes: 1e6, truncated: true },
      },
    },
  };
  const packr = new Packr();
  const unpackr = new Unpackr();
  const resultClone = serialize(result);
  const resultPacked = packr.pack(result);
  const results = await measure(
    {
      'worker: structured clone send': () => serialize(result),
      'worker: msgpackr pack': () => packr.pack(result),
      'main: structured clone receive': () => deserialize(resultClone),
      'main: msgpackr unpack': () => unpackr.unpack(resultPacked),
    },
    { iterations: 200, timeMs: 1000 },
  );

  const liveWinner =
    row(live, 'main: byte-log capture (O(1))').medianMs < row(live, 'main: structured clone of the log per capture (serialize)').medianMs
      ? 'byte log (msgpackr)'
      : 'structured clone';
  const inspectMain =
    row(inspect, 'main: msgpackr decode (entries)').medianMs < row(inspect, 'main: structured clone receive (deserialize)').medianMs
      ? 'msgpackr + transfer'
      : 'structured clone';
  const resultMain =
    row(results, 'main: msgpackr unpack').medianMs < row(results, 'main: structured clone receive').medianMs
      ? 'msgpackr'
      : 'structured clone';
  return [
    '### Transport — structured clone vs msgpackr (+ transfer) per payload kind',
    '',
    `Payload: a synthetic tool-heavy session, ${events.length} events, ${(jsonBytes / 2 ** 20).toFixed(1)} MiB as JSON lines; clone ${(cloned.byteLength / 2 ** 20).toFixed(1)} MiB, msgpackr entries ${(entries.byteLength / 2 ** 20).toFixed(1)} MiB. Encoding the byte log once, event by event at append time: ${appendMs.toFixed(1)} ms in total (${((appendMs * 1000) / events.length).toFixed(1)} µs per append).`,
    '',
    '**Live-log events (main → worker, per capture):**',
    '',
    markdownTable(live, 'main: structured clone of the log per capture (serialize)'),
    '',
    `Winner on the main thread: **${liveWinner}**.`,
    '',
    '**Inspection events (`inspect` task, worker → main):**',
    '',
    markdownTable(inspect, 'main: structured clone receive (deserialize)'),
    '',
    `Winner on the main thread: **${inspectMain}**.`,
    '',
    '**`readSource` result (worker → main, ~64 KiB JSON + stats):**',
    '',
    microTable(results, 'main: structured clone receive'),
    '',
    `Winner on the main thread: **${resultMain}**.`,
    '',
    'In code: live logs travel as the msgpackr byte log (a capture is a length; the worker copies each captured chunk to local memory and decodes it); `inspect` events and `readSource` results travel by structured clone.',
  ].join('\n');
}
