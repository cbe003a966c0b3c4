/**
 * Child process of the item 99 concurrency test (not a test file): for `rounds` rounds it opens a fresh store
 * with the title index (so it loads whatever the other process last wrote), appends a titled turn to one of
 * its own sessions, observes every session through the index and through a full inspection, compares its own
 * sessions (which only it changes), and flushes the index. Prints `{mismatches, checked, stats}` as JSON.
 *
 * Usage: node concurrent-index-writer.js <root> <none|zstd> <owner> <rounds> <id>…
 */
import { appendFile } from 'node:fs/promises';
import { asSessionId, type SessionId } from '../../../../../src/protocol/events.js';
import type { Compression } from '../../../../../src/protocol/storage-paths.js';
import { encodeStorageBatch } from '../../../../../src/protocol/storage-rows.js';
import { InMemoryLiveRegistry } from '../../../../../src/main/engine/corpus/live-registry.js';
import { SessionQuery, type SessionTitleObservation } from '../../../../../src/main/engine/corpus/session-query.js';
import { JsonlSessionStore } from '../../../../../src/main/engine/store/jsonl-store.js';
import { compressFrame, initZstd } from '../../../../../src/workers/decode/zstd-codec.js';

const T0 = 1_767_225_600_000;

function view(observation: SessionTitleObservation | undefined): string {
  if (observation === undefined) return 'missing';
  if (observation.status === 'fulfilled') return JSON.stringify(observation);
  const reason = observation.reason as Error & { code?: unknown };
  return JSON.stringify({ name: reason.name, code: reason.code, message: reason.message });
}

async function main(): Promise<void> {
  const [root, compressionArg, owner, roundsArg, ...ids] = process.argv.slice(2);
  if (root === undefined || owner === undefined || roundsArg === undefined)
    throw new Error('usage: <root> <compression> <owner> <rounds> <id>…');
  const compression = compressionArg as Compression;
  await initZstd();
  const own = ids.filter((id) => id.startsWith(`${owner}-`));
  let mismatches = 0;
  let checked = 0;
  const totals = { statOnly: 0, incremental: 0, full: 0, unavailable: 0 };
  for (let round = 0; round < Number(roundsArg); round++) {
    const indexed = await JsonlSessionStore.open({ root, compression });
    const full = await JsonlSessionStore.open({ root, compression, titleIndex: false });
    const target = own[round % own.length] as string;
    const seq = (await full.inspectArtifact(asSessionId(target))).events.length;
    const events = [
      { type: 'turn/start', seq, time: T0 + seq, data: { turn: round + 1 } },
      {
        type: 'session/title',
        seq: seq + 1,
        time: T0 + seq + 1,
        data: { title: `${owner} round ${round}`, messageSeqs: [], source: { kind: 'user' } },
      },
      { type: 'turn/end', seq: seq + 2, time: T0 + seq + 2, data: { turn: round + 1, reason: { kind: 'completed' } } },
    ];
    const text = new TextEncoder().encode(encodeStorageBatch(events, true));
    await appendFile((await full.locate(asSessionId(target))) as string, compression === 'zstd' ? compressFrame(text) : text);
    const sessionIds: SessionId[] = ids.map(asSessionId);
    const viaIndex = await new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: indexed }).readTitleSnapshots(sessionIds);
    const viaFull = await new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: full }).readTitleSnapshots(sessionIds);
    for (const id of own) {
      const index = ids.indexOf(id);
      checked += 1;
      if (view(viaIndex[index]) !== view(viaFull[index])) {
        mismatches += 1;
        process.stderr.write(`mismatch for ${id} in round ${round}:\n  index ${view(viaIndex[index])}\n  full  ${view(viaFull[index])}\n`);
      }
    }
    const targetObservation = viaIndex[ids.indexOf(target)];
    if (targetObservation?.status !== 'fulfilled' || targetObservation.value.title?.title !== `${owner} round ${round}`) {
      mismatches += 1;
      process.stderr.write(`round ${round}: ${target} does not show its new title: ${view(targetObservation)}\n`);
    }
    await indexed.flushTitleIndex();
    const stats = indexed.titleIndexStats;
    if (stats !== undefined) {
      totals.statOnly += stats.statOnly;
      totals.incremental += stats.incremental;
      totals.full += stats.full;
      totals.unavailable += stats.unavailable;
    }
  }
  process.stdout.write(`${JSON.stringify({ mismatches, checked, stats: totals })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
