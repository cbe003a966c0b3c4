// Issue 12 item 3 / SESSION-LOG.md §9.12, §9.16 rule 6: an append never writes over a torn tail. Real batches are
// cut at seeded offsets (what a crash mid-write leaves); the next append is refused with SESSION_STORE_TORN_TAIL and
// writes nothing; repair keeps every acknowledged batch; the append then succeeds, and a later repair erases nothing.
import { appendFile, stat } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asSessionId } from '../../src/protocol/events.js';
import type { SessionEvent } from '../../src/protocol/events.js';
import { SessionLogError } from '../../src/protocol/errors.js';
import { batchBytes } from '../../src/main/engine/store/artifact-writer.js';
import { JsonlSessionStore } from '../../src/main/engine/store/jsonl-store.js';
import { EventSequence, json, makeTempDir, noiseText, removeTempDir, sessionHeader } from '../main/engine/store/store-test-builders.js';

const CUTS = 12;

let root: string;
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(root);
});

describe.each(['none', 'zstd'] as const)('append after a torn tail (%s)', (compression) => {
  it(`${CUTS} seeded cuts: refused, repaired, appended; no acknowledged batch hidden or erased`, async () => {
    let state = compression === 'zstd' ? 77 : 78;
    const next = (): number => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      return state / 2 ** 31;
    };
    for (let cut = 0; cut < CUTS; cut += 1) {
      const store = await JsonlSessionStore.open({ root: `${root}/c${cut}`, compression, titleIndex: false });
      const id = `torn-${cut}`;
      const header = sessionHeader(id, '/p');
      const log = new EventSequence();
      const acknowledged: SessionEvent[] = [...log.closedTurn(1, 'first', ['a'])];
      const path = await store.create(header, acknowledged);
      const second = log.closedTurn(2, noiseText(5_000, cut + 1), ['b']);
      await store.append(header, second);
      acknowledged.push(...second);
      // A crash mid-write: the first 1…n-1 bytes of a batch that was never acknowledged (an open turn).
      const lost = new EventSequence();
      lost.advance(log.length);
      const bytes = Buffer.from(
        await batchBytes([lost.turnStart(3), lost.stepStart(3, 1), lost.userMessage(noiseText(20_000, cut + 7))], compression, false),
      );
      const tornLength = 1 + Math.floor(next() * (bytes.length - 1));
      await appendFile(path, bytes.subarray(0, tornLength));
      const tornSize = (await stat(path)).size;
      const retry = new EventSequence();
      retry.advance(log.length);
      const batch = retry.closedTurn(3, 'after the crash', ['z']);
      let refusal: unknown;
      try {
        await store.append(header, batch);
      } catch (error) {
        refusal = error;
      }
      // A cut past complete lines of the lost batch leaves them committed (raw): then the append conflicts instead.
      expect(refusal, `cut ${cut} at ${tornLength}/${bytes.length}`).toBeInstanceOf(SessionLogError);
      expect(['SESSION_STORE_TORN_TAIL', 'SESSION_STORE_CONFLICT']).toContain((refusal as SessionLogError).code);
      expect((await stat(path)).size).toBe(tornSize);
      await store.repair(asSessionId(id));
      const repaired = (await store.inspect(asSessionId(id))).events;
      expect(json(repaired.slice(0, acknowledged.length))).toBe(json(acknowledged));
      const resumed = new EventSequence();
      resumed.advance(repaired.length);
      const after = resumed.closedTurn(4, 'after the repair', ['ok']);
      await store.append(header, after);
      expect(await store.repair(asSessionId(id))).toBe(0);
      const final = (await store.inspect(asSessionId(id))).events;
      expect(json(final)).toBe(json([...repaired, ...after]));
    }
  });
});
