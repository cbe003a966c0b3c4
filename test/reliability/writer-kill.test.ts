// Issue 12 item 9 / SESSION-LOG.md §9.16: a child writer process appending large batches is killed with SIGKILL at
// random points; every batch it acknowledged (printed only after append resolved, i.e. after fsync) must be in the
// log, the log readable, repairable (a torn tail is the only damage a crash may leave) and appendable afterwards —
// which also breaks the dead child's stale lock. The figures go to RELIABILITY.md.
import { readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asSessionId } from '../../src/protocol/events.js';
import { JsonlSessionStore } from '../../src/main/engine/store/jsonl-store.js';
import { EventSequence, makeTempDir, removeTempDir, sessionHeader } from '../main/engine/store/store-test-builders.js';
import { expectAllAcknowledged, startWriter } from './writer-harness.js';
import { seededUnit } from '../support/seeded-random.js';

const TRIALS = 20;

let root: string;
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(root);
});

/** A reproducible pseudo-random sequence (the kill points and batch sizes of each run are printed on failure). */
const random = seededUnit;

describe.each(['none', 'zstd'] as const)('kill -9 during appends (%s)', (compression) => {
  it(`${TRIALS} trials: zero acknowledged batches lost; readable, repairable and appendable after each`, { timeout: 90_000 }, async () => {
    const next = random(compression === 'zstd' ? 0x5eed2 : 0x5eed1);
    let acknowledged = 0;
    let tornTails = 0;
    let staleLocks = 0;
    const started = Date.now();
    // Drawn up front, so the two trials that run at a time get the same values whatever their timing.
    const plans = Array.from({ length: TRIALS }, (_, trial) => ({
      trial,
      // 64 – 576 KiB prompts: writes long enough for a kill to land inside one.
      promptBytes: 65_536 + Math.floor(next() * 524_288),
      delay: Math.floor(next() * (compression === 'zstd' ? 300 : 80)),
    }));
    const runTrial = async ({ trial, promptBytes, delay }: (typeof plans)[number]): Promise<void> => {
      const id = `kill-${trial}`;
      const trialRoot = `${root}/t${trial}`;
      const child = startWriter(trialRoot, compression, id, 'create', id, promptBytes, 1_000_000);
      await child.firstAck;
      await new Promise((resolve) => setTimeout(resolve, delay));
      child.process.kill('SIGKILL');
      const exit = await child.exited;
      expect(exit.signal, `trial ${trial}: ${child.errors.join(',')}`).toBe('SIGKILL');
      const sizeOf = (ack: { first: number }): number => (ack.first === 0 ? 16 : promptBytes);

      const store = await JsonlSessionStore.open({ root: trialRoot, compression, titleIndex: false });
      const sid = asSessionId(id);
      const inspection = await store.inspectArtifact(sid);
      if (inspection.decoded.tornTail !== undefined) tornTails += 1;
      expectAllAcknowledged(inspection.events, child.acks, sizeOf);
      if ((await readdir(dirname(inspection.path))).includes('session.lock')) staleLocks += 1;
      // The repair takes the lock: a dead child's lock is broken, not a reason to refuse.
      await store.repair(sid);
      const repaired = await store.inspect(sid);
      expectAllAcknowledged(repaired.events, child.acks, sizeOf);
      // Appendable: the next batch continues the repaired log.
      const log = new EventSequence();
      log.advance(repaired.events.length);
      const turn = repaired.events.filter((event) => event.type === 'turn/start').length + 1;
      await store.append(sessionHeader(id, '/reliability'), log.closedTurn(turn, 'after the crash', ['ok']));
      const after = await store.inspect(sid);
      expect(after.events).toHaveLength(log.length);
      expectAllAcknowledged(after.events, child.acks, sizeOf);
      expect((await readdir(dirname(inspection.path))).filter((name) => name.startsWith('session.lock'))).toEqual([]);
      acknowledged += child.acks.length;
    };
    for (let at = 0; at < plans.length; at += 2) await Promise.all(plans.slice(at, at + 2).map(runTrial));
    // Every trial acknowledged at least its first batch; all of them were found.
    expect(acknowledged).toBeGreaterThanOrEqual(TRIALS);
    expect(staleLocks).toBe(TRIALS);
    console.log(
      `[reliability] kill -9 ${compression}: ${TRIALS} trials, ${acknowledged} acknowledged batches, 0 lost, ${tornTails} torn tails repaired, ${staleLocks} stale locks broken, ${Date.now() - started} ms`,
    );
  });
});
