// SESSION-REFERENCE.md §15 item 93: inspections racing appends only ever see whole batches
// (SESSION-LOG.md §9.10). The race is real (a second store instance appends while this one inspects), so
// the test checks an invariant over every observation rather than one forced interleaving.
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { stableRead, STABLE_READ_ATTEMPTS } from '../../../../src/io/file-revision.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { EventSequence, expectRejection, json, makeTempDir, noiseText, removeTempDir, sessionHeader } from './store-test-builders.js';

let root: string;
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(root);
});

const HEADER = sessionHeader('racing', '/p');
const ID = asSessionId('racing');

/**
 * Batches of closed turns of varying size. Deltas use alternating block indexes so nothing packs and
 * every batch is several hundred KiB of hard-to-compress text: a long write window for the reader to hit.
 */
function buildBatches(count: number): SessionEvent[][] {
  const log = new EventSequence();
  const batches: SessionEvent[][] = [];
  for (let turn = 1; turn <= count; turn++) {
    const deltas = 40 + ((turn * 37) % 120);
    const events = [log.turnStart(turn), log.stepStart(turn, 1), log.userMessage(`prompt ${turn}`)];
    for (let k = 0; k < deltas; k++) events.push(log.textDelta(turn, 1, k % 2, noiseText(2048, turn * 1000 + k)));
    events.push(log.assistantMessage(turn, 1, `answer ${turn}`), log.stepEnd(turn, 1), log.turnEnd(turn));
    batches.push(events);
  }
  return batches;
}

describe.each(['none', 'zstd'] as const)('inspections racing appends (%s)', (compression) => {
  it('every inspection returns a whole number of batches, never a half batch or synthetic closers', async () => {
    const writer = await JsonlSessionStore.open({ root, compression, packChunks: false });
    const reader = await JsonlSessionStore.open({ root, compression });
    const batches = buildBatches(24);
    const all = batches.flat();
    const boundaries = new Set<number>([0]);
    let total = 0;
    for (const batch of batches) {
      total += batch.length;
      boundaries.add(total);
    }
    await writer.create(HEADER);

    let writing = true;
    const writes = (async () => {
      try {
        for (const batch of batches) await writer.append(HEADER, batch);
      } finally {
        writing = false;
      }
    })();
    const observed: number[] = [];
    while (writing) {
      const inspection = await reader.inspectArtifact(ID);
      const count = inspection.events.length;
      observed.push(count);
      expect(boundaries.has(count), `inspection saw ${count} events, not a batch boundary`).toBe(true);
      expect(inspection.decoded.tornTail).toBeUndefined();
      expect(inspection.decoded.events.length).toBe(count);
      // Spot-check content: the prefix equals what was written (cheap: compare the last event only).
      if (count > 0) expect(json(inspection.events[count - 1])).toBe(json(all[count - 1]));
    }
    await writes;
    const final = await reader.inspect(ID);
    expect(final.events.length).toBe(all.length);
    expect(json(final.events)).toBe(json(all));
    // The race was exercised: the reader saw the log at more than one size while it grew.
    expect(new Set(observed).size).toBeGreaterThan(1);
  });
});

describe('stableRead', () => {
  it('returns the whole file with its revision when nothing changes', async () => {
    const store = await JsonlSessionStore.open({ root, compression: 'none' });
    const path = await store.create(HEADER, new EventSequence().closedTurn(1, 'hi', ['a']));
    const { bytes, revision } = await stableRead(path);
    expect(BigInt(bytes.length).toString()).toBe(revision.size);
    expect(Object.keys(revision)).toEqual(['dev', 'ino', 'size', 'mtimeNs', 'ctimeNs']);
  });

  // A procfs file reports size 0 but reads non-empty, so no attempt can ever be stable: a deterministic
  // stand-in for a file that keeps changing. The message is this build's own (the spec names no text).
  it.skipIf(!existsSync('/proc/self/status'))(
    `gives up after ${STABLE_READ_ATTEMPTS} unstable attempts with SESSION_STORE_UNSTABLE_READ`,
    async () => {
      await expectRejection(stableRead('/proc/self/status'), {
        message: 'session log "/proc/self/status" kept changing while it was read',
        code: 'SESSION_STORE_UNSTABLE_READ',
      });
    },
  );

  it('stops at a pre-aborted signal with its reason', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled');
    controller.abort(reason);
    await expect(stableRead('/proc/self/status', controller.signal)).rejects.toBe(reason);
  });
});
