/**
 * P4 (BENCHMARKS.md): discovery with a non-empty query over 10,000 sessions — the cold full scan
 * (every log fully read and validated, dsh's definition), the warm persistent title index, and the
 * index after appending to 1% of the logs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionEvent } from '../src/protocol/events.js';
import { InMemoryLiveRegistry } from '../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../src/main/engine/corpus/session-query.js';
import { SessionReferenceService } from '../src/main/engine/reference/session-reference-service.js';
import { JsonlSessionStore } from '../src/main/engine/store/jsonl-store.js';
import { corpusSession, writeDiscoveryCorpus } from './support/corpus-generator.js';
import { markdownTable, measureSlow } from './support/measure.js';

const SESSIONS = 10_000;
const TARGET = { id: 'bench-target', session: { header: { cwd: '/work/project-3' } } };

async function discovery(root: string, titleIndex: boolean): Promise<SessionReferenceService> {
  const store = await JsonlSessionStore.open({ root, compression: 'none', titleIndex });
  return new SessionReferenceService({ sessionQuery: new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store }) });
}

/** Runs P4 and returns its markdown report. */
export async function runP4(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-p4-'));
  try {
    const root = join(dir, 'root');
    const store = await writeDiscoveryCorpus(root, SESSIONS, 3, 'none');
    const cold = await discovery(root, false);
    const coldRow = await measureSlow('cold full scan (no index)', () => cold.listCandidates(TARGET, 'checkout'), 2);
    const indexed = await discovery(root, true);
    const firstIndexRow = await measureSlow('first indexed query (builds the index)', () => indexed.listCandidates(TARGET, 'checkout'), 1);
    const warmRow = await measureSlow('warm index (stat only)', () => indexed.listCandidates(TARGET, 'checkout'), 5);
    // Append one more turn to 1% of the logs, then query again through the same index.
    const appended: string[] = [];
    for (let index = 0; index < SESSIONS; index += 100) {
      const { header, events } = corpusSession(index, 3);
      const turn = 4;
      const base = events.length;
      const more: SessionEvent[] = [
        { type: 'turn/start', seq: base, time: header.createdAt + base, data: { turn } },
        {
          type: 'user/message',
          seq: base + 1,
          time: header.createdAt + base + 1,
          data: {
            content: [{ type: 'text', text: 'one more question about checkout' }],
            source: { kind: 'user' },
            role: 'user',
            id: `${header.id}-extra`,
          },
          surfaceOp: 'append',
        },
        { type: 'turn/end', seq: base + 2, time: header.createdAt + base + 2, data: { turn, reason: { kind: 'completed' } } },
      ];
      await store.append(header, more);
      appended.push(header.id);
    }
    const afterAppendRow = await measureSlow('index after appending to 1% of logs', () => indexed.listCandidates(TARGET, 'checkout'), 1);
    const warmAgainRow = await measureSlow('warm index again', () => indexed.listCandidates(TARGET, 'checkout'), 3);
    const same =
      JSON.stringify(await cold.listCandidates(TARGET, 'checkout')) === JSON.stringify(await indexed.listCandidates(TARGET, 'checkout'));
    const rows = [coldRow, firstIndexRow, warmRow, afterAppendRow, warmAgainRow];
    return [
      '### P4 — discovery over 10,000 sessions (query "checkout")',
      '',
      `Corpus: ${SESSIONS} raw sessions of 3 turns (~3 KB each) over 25 working directories, written by our store; ${appended.length} logs then get one more turn. Indexed and unindexed results identical: **${same ? 'yes' : 'NO'}**.`,
      '',
      markdownTable(rows, 'cold full scan (no index)'),
      '',
      `Warm / cold: **${(warmRow.medianMs / coldRow.medianMs).toFixed(4)}** (target < 0.01). After appending to 1%: ${(afterAppendRow.medianMs - warmRow.medianMs).toFixed(0)} ms above warm for ${appended.length} rescanned tails.`,
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
