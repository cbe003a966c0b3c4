// Issue 12 item 9 / SESSION-LOG.md §9.16 rules 4–5: two writer processes on one session. Holding writers: one wins,
// the other fails with SESSION_STORE_LOCKED before writing. Per-call writers (no held writer, each batch's seqs
// from the process's own view, as two independent hosts): each append either lands or fails with
// SESSION_STORE_CONFLICT; the log never gets a seq gap. Either way the log stays readable with every acknowledged
// batch of both processes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asSessionId } from '../../src/protocol/events.js';
import { JsonlSessionStore } from '../../src/main/engine/store/jsonl-store.js';
import { EventSequence, makeTempDir, removeTempDir, sessionHeader } from '../main/engine/store/store-test-builders.js';
import { expectAllAcknowledged, startWriter } from './writer-harness.js';
import type { ChildWriter } from './writer-harness.js';

const TRIALS = 3;
const PROMPT = 2_000;

let root: string;
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(root);
});

async function seeded(trialRoot: string, compression: 'none' | 'zstd', id: string): Promise<JsonlSessionStore> {
  const store = await JsonlSessionStore.open({ root: trialRoot, compression, titleIndex: false });
  await store.create(sessionHeader(id, '/reliability'), new EventSequence().closedTurn(1, 'seed', ['s']));
  return store;
}

describe.each(['none', 'zstd'] as const)('two writer processes on one session (%s)', (compression) => {
  it(`holding writers, ${TRIALS} trials: one wins, the other gets SESSION_STORE_LOCKED; every acknowledged batch is kept`, {
    timeout: 60_000,
  }, async () => {
    let locked = 0;
    let acknowledged = 0;
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const trialRoot = `${root}/held${trial}`;
      const id = `two-${trial}`;
      const store = await seeded(trialRoot, compression, id);
      const children: ChildWriter[] = [
        startWriter(trialRoot, compression, id, 'resume', 'A', PROMPT, 120),
        startWriter(trialRoot, compression, id, 'resume', 'B', PROMPT, 120),
      ];
      await Promise.all(children.map((child) => child.exited));
      for (const child of children) {
        // Each process either wrote all its batches or was refused, typed, before writing any.
        if (child.done) expect(child.errors).toEqual([]);
        else {
          expect(child.errors).toEqual(['SESSION_STORE_LOCKED']);
          expect(child.acks).toEqual([]);
          locked += 1;
        }
      }
      expect(children.some((child) => child.done)).toBe(true);
      const events = (await store.inspect(asSessionId(id))).events;
      acknowledged += expectAllAcknowledged(
        events,
        children.flatMap((child) => child.acks),
        () => PROMPT,
      );
    }
    console.log(
      `[reliability] two held writers ${compression}: ${TRIALS} trials, ${locked} refused LOCKED, ${acknowledged} acknowledged batches, 0 lost`,
    );
  });

  it(`per-call writers, ${TRIALS} trials: appends land or fail with SESSION_STORE_CONFLICT; the log stays readable with every acknowledged batch`, {
    timeout: 60_000,
  }, async () => {
    let conflicts = 0;
    let acknowledged = 0;
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const trialRoot = `${root}/percall${trial}`;
      const id = `race-${trial}`;
      const store = await seeded(trialRoot, compression, id);
      const children = [
        startWriter(trialRoot, compression, id, 'percall', 'A', PROMPT, 40),
        startWriter(trialRoot, compression, id, 'percall', 'B', PROMPT, 40),
      ];
      await Promise.all(children.map((child) => child.exited));
      for (const child of children) {
        if (!child.done) {
          expect(child.errors).toEqual(['SESSION_STORE_CONFLICT']);
          conflicts += 1;
        }
      }
      const events = (await store.inspect(asSessionId(id))).events;
      acknowledged += expectAllAcknowledged(
        events,
        children.flatMap((child) => child.acks),
        () => PROMPT,
      );
      // Still appendable by a third writer that learns the log first.
      const log = new EventSequence();
      log.advance(events.length);
      await store.append(sessionHeader(id, '/reliability'), log.closedTurn(1000, 'third', ['t']));
      expect((await store.inspect(asSessionId(id))).events).toHaveLength(log.length);
    }
    console.log(
      `[reliability] two per-call writers ${compression}: ${TRIALS} trials, ${conflicts} refused CONFLICT, ${acknowledged} acknowledged batches, 0 lost`,
    );
  });
});
