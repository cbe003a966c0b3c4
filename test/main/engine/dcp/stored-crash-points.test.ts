/**
 * Crash points at the storage level (DCP issue 7; DCP.md §13.3, SESSION-LOG.md §9.9, §9.11, §9.12): the
 * DCP-active session is written through the JSONL store in several batches, in raw and in zstd mode, and the
 * artifact is cut at every event boundary and inside lines / frames. Each cut is copied into a fresh root at the
 * same layout path and inspected: a torn tail is tolerated, closers are synthesised, the result loads as a host
 * seed, its last bracket classifies as §13.3's table says for the bracket events the recovered prefix holds, and
 * the cold DCP index holds exactly the blocks whose checkpoints were recovered, each once. Durable repair of a torn
 * cut reloads with the same classification.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import type { CompactionClass } from '../../../../src/protocol/dcp/crash-classification.js';
import { classifyCompaction } from '../../../../src/protocol/dcp/crash-classification.js';
import { estimateEvent } from '../../../../src/protocol/token-estimator.js';
import { Session } from '../../../../src/main/stand-in/host/session.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import type { DcpHarness } from './dcp-harness.js';
import {
  coldIndex,
  compressReply,
  compressResults,
  createDcpHarness,
  expectHealthyLog,
  loggedMarkers,
  range,
  texts,
  turn,
} from './dcp-harness.js';
import { compactRange } from '../../stand-in/host/host-builders.js';
import { appendFailedNativeAttempt, dcpActiveSession } from './dcp-active-session.js';
import { bracketPositions, expectedClass } from './crash-oracle.js';
import type { BracketPositions } from './crash-oracle.js';

/** Whether a prefix leaves a turn open (its last `turn/start` has no `turn/end` after it), so closers must follow (§9.12). */
function leavesTurnOpen(prefix: readonly SessionEvent[]): boolean {
  const lastStart = prefix.findLastIndex((event) => event.type === 'turn/start');
  const lastEnd = prefix.findLastIndex((event) => event.type === 'turn/end');
  return lastStart > lastEnd;
}

/** One byte cut of the artifact and how many stored events §9.11/§9.9 say it must recover (a range when the codec decides). */
interface Cut {
  readonly bytes: number;
  readonly label: string;
  /** Exactly this many stored events, or any count in `[min, max]` (zstd: what complete blocks of a torn frame yield). */
  readonly min: number;
  readonly max: number;
  /** The cut leaves a torn tail (bytes after the committed region). */
  readonly torn: boolean;
  /** Events in the committed region before the torn tail (complete lines / complete frames); repair rewrites the rest. */
  readonly committed: number;
}

/** The batch sizes the log is appended in: varied, so frames hold one or several events. */
const BATCH_SIZES = [1, 3, 2, 7, 1, 5];

/** Splits `events` into the batches the writer appends (the first batch goes with `create`). */
function batchesOf(events: readonly SessionEvent[]): SessionEvent[][] {
  const batches: SessionEvent[][] = [];
  let offset = 0;
  for (let index = 0; offset < events.length; index += 1) {
    const size = BATCH_SIZES[index % BATCH_SIZES.length]!;
    batches.push(events.slice(offset, offset + size));
    offset += size;
  }
  return batches;
}

describe('DCP issue 7: stored DCP-active logs cut at every crash point', () => {
  let harness: DcpHarness;
  let events: readonly SessionEvent[];
  let brackets: BracketPositions[];
  /** Block ref → checkpoint seq, from the cold index of the whole log. */
  let blockSeqs: Map<string, number>;
  const dirs: string[] = [];

  beforeAll(async () => {
    harness = await dcpActiveSession();
    const session = harness.session;
    // A failed native attempt at the end, so that every crash class occurs in some prefix.
    appendFailedNativeAttempt(session);
    events = structuredClone(session.events);
    brackets = bracketPositions(events);
    blockSeqs = new Map(
      coldIndex(harness, events)
        .blocks()
        .map((block) => [block.ref, block.seq]),
    );
  });

  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  });

  function tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'sessionctx-stored-crash-'));
    dirs.push(dir);
    return dir;
  }

  /**
   * Writes the whole log through a store (`create` with the first batch, then `append` per batch); returns the
   * artifact's bytes, its path relative to the root, and `ends`: the header record's end, then the file size after
   * each batch (batch boundaries are event boundaries and, in zstd mode, frame ends).
   */
  async function writeLog(
    compression: 'none' | 'zstd',
    batches: readonly SessionEvent[][],
  ): Promise<{ bytes: Buffer; layoutPath: string; ends: number[] }> {
    const header = harness.session.header;
    // The header record alone, written the same way in a scratch root, gives where the first batch starts.
    const scratch = await JsonlSessionStore.open({ root: tempDir(), compression, packChunks: false, titleIndex: false });
    const headerEnd = readFileSync(await scratch.create(header, [])).length;
    const root = tempDir();
    const store = await JsonlSessionStore.open({ root, compression, packChunks: false, titleIndex: false });
    const path = await store.create(header, batches[0]!);
    const ends = [headerEnd, readFileSync(path).length];
    for (const batch of batches.slice(1)) {
      await store.append(header, batch);
      ends.push(readFileSync(path).length);
    }
    return { bytes: readFileSync(path), layoutPath: relative(root, path), ends };
  }

  /**
   * Copies a byte prefix into a fresh root at the same layout path, inspects it and checks the crash contract;
   * repairs torn cuts and checks the repaired log. Returns the classes seen.
   */
  async function checkCut(compression: 'none' | 'zstd', bytes: Buffer, layoutPath: string, cut: Cut): Promise<CompactionClass[]> {
    const root = tempDir();
    const artifact = join(root, layoutPath);
    mkdirSync(dirname(artifact), { recursive: true });
    writeFileSync(artifact, bytes.subarray(0, cut.bytes));
    const store = await JsonlSessionStore.open({ root, compression, packChunks: false, titleIndex: false });
    const id = harness.session.header.id;
    let inspected: { meta: typeof harness.session.header; events: readonly SessionEvent[] };
    try {
      inspected = await store.inspect(id);
    } catch (error) {
      throw new Error(`${cut.label} does not inspect: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    // The stored part is an exact prefix of the written log (nothing lost in the committed region, nothing doubled).
    const stored = inspected.events.findIndex(
      (event, index) => index >= events.length || JSON.stringify(event) !== JSON.stringify(events[index]),
    );
    const length = stored === -1 ? inspected.events.length : stored;
    expect(length, `${cut.label} recovered events`).toBeGreaterThanOrEqual(cut.min);
    expect(length, `${cut.label} recovered events`).toBeLessThanOrEqual(cut.max);
    const prefix = events.slice(0, length);
    const closers = inspected.events.slice(length);
    // §9.12: closers exist exactly when a turn is open, are tool results / step end / turn end, and end the turn as interrupted.
    if (leavesTurnOpen(prefix)) {
      expect(closers.length, `${cut.label} closers`).toBeGreaterThan(0);
      expect(closers.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: { kind: 'interrupted' } } });
      for (const closer of closers) expect(['tool/result', 'step/end', 'turn/end']).toContain(closer.type);
    } else {
      expect(closers, `${cut.label} closers`).toEqual([]);
    }
    closers.forEach((closer, index) => expect(closer.seq).toBe(length + index));

    const before = classifyCompaction(inspected.events);
    expect(before.class, `${cut.label} class as inspected`).toBe(expectedClass(brackets, length, false));
    const session = Session.create(id, { header: inspected.meta, seed: [...inspected.events] });
    const after = classifyCompaction(session.events);
    expect(after.class, `${cut.label} class after load`).toBe(expectedClass(brackets, length, true));
    expect(after.busy, `${cut.label} busy after load`).toBe(false);
    expect(session.openBrackets(), `${cut.label} open brackets`).toEqual([]);

    const blocks = coldIndex(harness, session.events).blocks();
    const refs = blocks.map((block) => block.ref);
    expect(new Set(refs).size, `${cut.label} duplicated blocks`).toBe(refs.length);
    const expected = [...blockSeqs].filter(([, seq]) => seq < length).sort();
    expect(blocks.map((block) => [block.ref, block.seq]).sort(), `${cut.label} blocks`).toEqual(expected);

    if (cut.torn) {
      // Durable repair (§9.12 rule 4): the file then holds the balanced events, no torn tail, and reloads alike.
      const written = await store.repair(id);
      // The repair batch is the events recovered from the torn frame (zstd) plus the closers.
      expect(written, `${cut.label} repair batch`).toBe(length - cut.committed + closers.length);
      const repaired = await store.inspectArtifact(id);
      expect(repaired.decoded.tornTail, `${cut.label} tail after repair`).toBeUndefined();
      expect(repaired.events, `${cut.label} events after repair`).toEqual(inspected.events);
      expect(classifyCompaction(repaired.events).class).toBe(before.class);
      const reloaded = Session.create(id, { header: repaired.meta, seed: [...repaired.events] });
      expect(classifyCompaction(reloaded.events).class, `${cut.label} class after repair`).toBe(after.class);
      expect(await store.repair(id), `${cut.label} second repair`).toBe(0);
    }
    return [before.class, after.class];
  }

  it('raw: every event boundary and a cut inside every line', async () => {
    const { bytes, layoutPath, ends } = await writeLog('none', batchesOf(events));
    expect(ends.at(-1)).toBe(bytes.length);
    // Raw mode is one LF-terminated line per event after the header line (packChunks off), so line ends are event boundaries.
    const lineEnds: number[] = [];
    bytes.forEach((byte, offset) => {
      if (byte === 0x0a) lineEnds.push(offset + 1);
    });
    expect(lineEnds.length).toBe(events.length + 1);
    const seen = new Set<CompactionClass>();
    for (let count = 0; count <= events.length; count += 1) {
      const end = lineEnds[count]!;
      for (const cls of await checkCut('none', bytes, layoutPath, {
        bytes: end,
        label: `raw boundary ${count}`,
        min: count,
        max: count,
        torn: false,
        committed: count,
      }))
        seen.add(cls);
      if (count < events.length) {
        // A torn line (no LF yet) is ignored: the committed region is the `count` events before it (§9.11).
        const mid = end + Math.max(1, Math.floor((lineEnds[count + 1]! - end) / 2));
        for (const cls of await checkCut('none', bytes, layoutPath, {
          bytes: mid,
          label: `raw mid-line ${count}`,
          min: count,
          max: count,
          torn: true,
          committed: count,
        }))
          seen.add(cls);
      }
    }
    expect([...seen].sort()).toEqual([
      'committed',
      'failed-attempt',
      'live-orphan-start',
      'none',
      'recovered-unclosed',
      'stale-orphan-start',
      'summary-without-replace',
    ]);
  }, 120_000);

  it('zstd: every frame end, and cuts inside every frame header, body and checksum', async () => {
    const batches = batchesOf(events);
    const { bytes, layoutPath, ends } = await writeLog('zstd', batches);
    expect(ends.at(-1)).toBe(bytes.length);
    const seen = new Set<CompactionClass>();
    // The header frame alone: no events, no bracket.
    for (const cls of await checkCut('zstd', bytes, layoutPath, {
      bytes: ends[0]!,
      label: 'zstd header only',
      min: 0,
      max: 0,
      torn: false,
      committed: 0,
    }))
      seen.add(cls);
    let before = 0;
    for (let index = 0; index < batches.length; index += 1) {
      const frameStart = ends[index]!;
      const frameEnd = ends[index + 1]!;
      const size = batches[index]!.length;
      const cuts: Cut[] = [];
      // Fewer than 4 bytes, or a header cut short: torn, nothing recoverable from this frame (§9.9 step 2, §9.11 zstd 3).
      for (const into of [1, 2, 3])
        cuts.push({
          bytes: frameStart + into,
          label: `zstd frame ${index} +${into}`,
          min: before,
          max: before,
          torn: true,
          committed: before,
        });
      // Inside the body: the codec decides how many complete blocks (hence whole lines) it yields, but never more than the frame.
      const middle = frameStart + Math.floor((frameEnd - frameStart) / 2);
      cuts.push({ bytes: middle, label: `zstd frame ${index} middle`, min: before, max: before + size, torn: true, committed: before });
      // Inside the 4-byte checksum every block is complete: all of the frame's events are recovered, unverified.
      for (const back of [1, 2, 3, 4])
        cuts.push({
          bytes: frameEnd - back,
          label: `zstd frame ${index} end-${back}`,
          min: before + size,
          max: before + size,
          torn: true,
          committed: before,
        });
      for (const cut of cuts) for (const cls of await checkCut('zstd', bytes, layoutPath, cut)) seen.add(cls);
      before += size;
      for (const cls of await checkCut('zstd', bytes, layoutPath, {
        bytes: frameEnd,
        label: `zstd frame ${index} end`,
        min: before,
        max: before,
        torn: false,
        committed: before,
      }))
        seen.add(cls);
    }
    expect([...seen].sort()).toEqual([
      'committed',
      'failed-attempt',
      'live-orphan-start',
      'none',
      'recovered-unclosed',
      'stale-orphan-start',
      'summary-without-replace',
    ]);
  }, 120_000);

  it('§18 item 52: a stored log cut after the first start loads stale; a fork before that orphan start has no bracket', async () => {
    const { bytes, layoutPath } = await writeLog('none', batchesOf(events));
    const firstStart = brackets[0]!.start;
    // Cut just after the first start's line: the recovered log ends in an orphan start (no summary, checkpoint or end).
    const lineEnds: number[] = [];
    bytes.forEach((byte, offset) => {
      if (byte === 0x0a) lineEnds.push(offset + 1);
    });
    const root = tempDir();
    const artifact = join(root, layoutPath);
    mkdirSync(dirname(artifact), { recursive: true });
    writeFileSync(artifact, bytes.subarray(0, lineEnds[firstStart + 1]!));
    const store = await JsonlSessionStore.open({ root, compression: 'none', packChunks: false, titleIndex: false });
    const id = harness.session.header.id;
    const inspected = await store.inspect(id);
    expect(classifyCompaction(inspected.events)).toMatchObject({ class: 'live-orphan-start', busy: true });
    const parent = Session.create(id, { header: inspected.meta, seed: [...inspected.events] });
    expect(classifyCompaction(parent.events)).toMatchObject({ class: 'stale-orphan-start', stale: true, busy: false });

    // The fork point: just after the last turn/end before the orphan start, a turn boundary with no bracket before it.
    const atSeq = events.slice(0, firstStart).findLastIndex((event) => event.type === 'turn/end') + 1;
    expect(atSeq).toBeGreaterThan(0);
    const child = parent.fork(atSeq);
    expect(classifyCompaction(child.events)).toMatchObject({ class: 'none', busy: false, compactionId: undefined });
    expect(coldIndex(harness, child.events).blocks()).toEqual([]);
    // Persisted and inspected, the child still has no bracket.
    await store.create(child.header, child.events);
    const stored = await store.inspect(child.header.id);
    expect(stored.events).toEqual(child.events);
    expect(classifyCompaction(stored.events).class).toBe('none');
  });
});

/** The first line of a command output that starts with `label` (a DCP.md §15.2 label), or `''`. */
function statLine(text: string, label: string): string {
  return text.split('\n').find((candidate) => candidate.startsWith(label)) ?? '';
}

describe('§18 item 49: native compaction absorbs b1 and its markers', () => {
  /** Three long turns compressed into b1 by a fourth; the script then answers a compress of `b1..b1` (turn 5). */
  async function compressedIntoB1(): Promise<DcpHarness> {
    const harness = createDcpHarness({
      script: [
        ...texts(3),
        compressReply([range('m0001', 'm0003', 'Three turns.')]),
        { text: 'ok' },
        compressReply([range('b1', 'b1')]),
        { text: 'ok' },
      ],
    });
    for (let index = 1; index <= 3; index += 1) await turn(harness, `turn ${index} ${'t'.repeat(300)}`);
    await turn(harness, 'compress');
    return harness;
  }

  it('b1 becomes absorbed-native, no block is active, the markers leave the surface, and a ref to b1 fails with the absorbed reason', async () => {
    const harness = await compressedIntoB1();
    const b1 = harness.index().block('b1')!;
    expect(b1.membership).toBe('active');
    // A native pass from b1's checkpoint to the newest node covers b1 and every marker still on the surface.
    const surface = harness.session.surface;
    const last = surface.at(surface.length - 1)!;
    compactRange(harness.session, 'native-over-b1', b1.seq, last, 'native summary over b1');
    const index = harness.index();
    expect(index.block('b1')!.membership).toBe('absorbed-native');
    expect(index.blocks().filter((block) => block.membership === 'active')).toEqual([]);
    const markers = loggedMarkers(harness.session);
    expect(markers.length).toBeGreaterThan(0);
    for (const marker of markers) expect(harness.session.surface.has(marker.seq), `marker ${marker.ref} on the surface`).toBe(false);
    // The cold replay of the stored log agrees (§3.4).
    expect(coldIndex(harness).block('b1')!.membership).toBe('absorbed-native');

    const before = harness.session.events.filter((event) => event.type === 'compaction/start').length;
    await turn(harness, 'compress b1 again');
    const [, result] = compressResults(harness.session);
    expect(result!.isError).toBe(true);
    expect(result!.text).toContain('1. b1..b1: failed: startRef b1 is not an active boundary (absorbed by native compaction)');
    // A failed ref writes no bracket.
    expect(harness.session.events.filter((event) => event.type === 'compaction/start').length).toBe(before);
    expectHealthyLog(harness);
  });

  it('the meter drops and still equals Σ nodes; /dcp stats excludes the native savings', async () => {
    const harness = await compressedIntoB1();
    const { session } = harness;
    /** Σ of the host estimate of every node now on the surface, computed from the events (not the meter). */
    const surfaceSum = (): number => {
      let sum = 0;
      for (let position = 0; position < session.surface.length; position += 1)
        sum += estimateEvent(session.events[session.surface.at(position)!]!);
      return sum;
    };
    const statsBefore = await harness.runCommand('/dcp stats');
    expect(statsBefore.kind).toBe('success');
    expect(statLine(statsBefore.text, 'blocks (hist/act):')).toBe('blocks (hist/act): 1/1');
    const dcpSummary = session.events.find((event) => event.type === 'compaction/summary')!;
    expect(statLine(statsBefore.text, 'shadowed tokens:')).toBe(
      `shadowed tokens: ~${(dcpSummary.data as { shadowedTokenCount: number }).shadowedTokenCount}`,
    );
    const meterBefore = session.meter.measure().surfaceTokens;
    expect(meterBefore).toBe(surfaceSum());

    const b1 = harness.index().block('b1')!;
    const last = session.surface.at(session.surface.length - 1)!;
    const nativeSeq = compactRange(session, 'native-over-b1', b1.seq, last, 'native summary over b1');
    const nativeSummary = session.events[nativeSeq - 1]!;
    expect(nativeSummary.type).toBe('compaction/summary');
    const nativeClaim = (nativeSummary.data as { shadowedTokenCount: number }).shadowedTokenCount;
    // The native pass saves tokens, so counting it would move the ledger lines below.
    expect(nativeClaim).toBeGreaterThan(estimateEvent(session.events[nativeSeq]!));

    const meterAfter = session.meter.measure().surfaceTokens;
    expect(meterAfter).toBeLessThan(meterBefore);
    expect(meterAfter).toBe(surfaceSum());
    expect(meterAfter).toBe(meterBefore - nativeClaim + estimateEvent(session.events[nativeSeq]!));

    const statsAfter = await harness.runCommand('/dcp stats');
    expect(statsAfter.kind).toBe('success');
    expect(statLine(statsAfter.text, 'blocks (hist/act):')).toBe('blocks (hist/act): 1/0');
    for (const label of [
      'shadowed tokens:',
      'checkpoint tokens:',
      'prune tokens:',
      'cleanup savings:',
      'expansion delta:',
      'marker tokens:',
      'history reduction:',
    ]) {
      expect(statLine(statsAfter.text, label), label).toBe(statLine(statsBefore.text, label));
      expect(statLine(statsAfter.text, label), label).not.toBe('');
    }
    expect(statLine(statsAfter.text, 'current surface:')).toBe(`current surface: ~${surfaceSum()}`);
    expectHealthyLog(harness);
  });
});
