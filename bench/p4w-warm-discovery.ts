/**
 * P4w (issue 15): per-keystroke discovery over 10,000 sessions in a long-lived engine — `listCandidates` with a
 * growing query — answered from the warm corpus view, against the cold full scan (every log listed, read and
 * validated: dsh's definition) measured in the same run; then an append to 1% of the logs, and the next query,
 * which must reflect every change.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionEvent } from '../src/protocol/events.js';
import { createEngine } from '../src/main/engine/assembly/create-engine.js';
import type { DiscoveryReport } from '../src/main/engine/corpus/warm-discovery.js';
import { InMemoryLiveRegistry } from '../src/main/engine/corpus/live-registry.js';
import { SessionQuery } from '../src/main/engine/corpus/session-query.js';
import { SessionReferenceService } from '../src/main/engine/reference/session-reference-service.js';
import { JsonlSessionStore } from '../src/main/engine/store/jsonl-store.js';
import { corpusSession, writeDiscoveryCorpus } from './support/corpus-generator.js';
import { markdownTable, type MeasuredRow } from './support/measure.js';

/** 10,000; `P4W_SESSIONS` overrides it for a quick check of the suite itself. */
const SESSIONS = Number(process.env['P4W_SESSIONS'] ?? 10_000);
const TARGET = { id: 'bench-target', session: { header: { cwd: '/work/project-3' } } };
/** The keystrokes: every prefix of a title that exists ("Fix checkout issue 1…" matches 1,111 sessions at the end). */
const TYPED = 'fix checkout issue 1';
const KEYSTROKES = Array.from({ length: TYPED.length }, (_, index) => TYPED.slice(0, index + 1));
const ROUNDS = 5;
const LIMIT = 1_000;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function row(name: string, times: readonly number[]): MeasuredRow {
  return { name, medianMs: median(times), minMs: Math.min(...times), maxMs: Math.max(...times), samples: times.length };
}

/** Runs P4w and returns its markdown report. */
export async function runP4w(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-p4w-'));
  try {
    const root = join(dir, 'root');
    const writer = await writeDiscoveryCorpus(root, SESSIONS, 3, 'none');
    const coldStore = await JsonlSessionStore.open({ root, compression: 'none', titleIndex: false });
    const cold = new SessionReferenceService({
      sessionQuery: new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: coldStore }),
    });
    const reports: DiscoveryReport[] = [];
    const engine = await createEngine({
      root,
      compression: 'none',
      store: { cacheDirectory: join(dir, 'cache') },
      onDiscovery: (report) => reports.push(report),
    });
    try {
      const coldTimes: number[] = [];
      const coldFirst = await timed(coldTimes, () => cold.listCandidates(TARGET, KEYSTROKES[0] as string, LIMIT));
      const firstWarm: number[] = [];
      const warmFirst = await timed(firstWarm, () => engine.listCandidates(TARGET, KEYSTROKES[0] as string, LIMIT));
      const firstServed = reports.at(-1)?.served;
      // Let the title index write its first file (a deferred background write) before timing keystrokes.
      await engine.store?.flushTitleIndex();
      const perKeystroke: number[] = [];
      const servedWarm = new Set<string>();
      let lastWarm: unknown;
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const query of KEYSTROKES) {
          lastWarm = await timed(perKeystroke, () => engine.listCandidates(TARGET, query, LIMIT));
          servedWarm.add(reports.at(-1)?.served ?? 'none');
        }
      }
      const coldLast = await timed(coldTimes, () => cold.listCandidates(TARGET, TYPED, LIMIT));
      const sameFirst = JSON.stringify(coldFirst) === JSON.stringify(warmFirst);
      const sameLast = JSON.stringify(coldLast) === JSON.stringify(lastWarm);

      // Append one more turn and a new title to 1% of the logs, then query for the new titles.
      const appended = new Set<string>();
      for (let index = 0; index < SESSIONS; index += 100) {
        const { header, events } = corpusSession(index, 3);
        const base = events.length;
        const more: SessionEvent[] = [
          { type: 'turn/start', seq: base, time: header.createdAt + base, data: { turn: 4 } },
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
          {
            type: 'session/title',
            seq: base + 2,
            time: header.createdAt + base + 2,
            data: { title: `Appended zebra ${index}`, messageSeqs: [base + 1], source: { kind: 'fallback' } },
          },
          { type: 'turn/end', seq: base + 3, time: header.createdAt + base + 3, data: { turn: 4, reason: { kind: 'completed' } } },
        ];
        await writer.append(header, more);
        appended.add(header.id);
      }
      const afterTimes: number[] = [];
      const after = await timed(afterTimes, () => engine.listCandidates(TARGET, 'appended zebra', LIMIT));
      const afterReport = reports.at(-1);
      const reflected =
        after.length === appended.size &&
        after.every((candidate) => appended.has(candidate.sessionId) && candidate.label.startsWith('Appended zebra'));
      const warmAgain: number[] = [];
      for (let run = 0; run < 9; run += 1) await timed(warmAgain, () => engine.listCandidates(TARGET, 'appended zebra', LIMIT));
      const coldAfter = await timed(coldTimes, () => cold.listCandidates(TARGET, 'appended zebra', LIMIT));
      const sameAfter = JSON.stringify(coldAfter) === JSON.stringify(after);
      const stats = engine.corpusViewStats();

      const coldRow = row('cold full scan (no view, no index; dsh definition)', coldTimes);
      const firstRow = row('long-lived engine, first query (builds the view and the title index)', firstWarm);
      const warmRow = row(`warm, per keystroke (${KEYSTROKES.length} prefixes × ${ROUNDS} rounds)`, perKeystroke);
      const afterRow = row('first query after appending to 1% of the logs', afterTimes);
      const warmAgainRow = row('warm, the same query again', warmAgain);
      const rows = [coldRow, firstRow, warmRow, afterRow, warmAgainRow];
      const memory = process.memoryUsage();
      return [
        `### P4w — per-keystroke discovery over ${SESSIONS.toLocaleString('en-US')} sessions in a long-lived engine`,
        '',
        `Corpus: ${SESSIONS} raw sessions of 3 turns (~3 KB each) over 25 working directories (bench/support/corpus-generator.ts). Keystrokes: every prefix of "${TYPED}" (${KEYSTROKES.length} queries, limit ${LIMIT}). Engine: \`createEngine({ root })\` defaults (warm view on, workers on, revalidateMs 30,000). After the keystrokes, ${appended.size} logs (1%) each get one more turn and a new title "Appended zebra <n>"; then the query "appended zebra".`,
        '',
        markdownTable(rows, coldRow.name),
        '',
        `- Warm per keystroke / cold: **${(warmRow.medianMs / coldRow.medianMs).toFixed(5)}** (target ≤ 0.001); median ${warmRow.medianMs.toFixed(2)} ms (target ≤ 10 ms), max ${warmRow.maxMs.toFixed(2)} ms. Served: first query ${firstServed ?? 'n/a'}, keystrokes ${[...servedWarm].join('/')}.`,
        `- After appending to 1%: the next query reflected every change: **${reflected ? 'yes' : 'NO'}** (${after.length} candidates, all appended ids with their new titles); it cost **${(afterRow.medianMs / warmAgainRow.medianMs).toFixed(2)}×** the same query warm (target ≤ 2×), served ${afterReport?.served ?? 'n/a'} with ${afterReport?.rechecked ?? 'n/a'} session directories re-read and ${afterReport?.titleMisses ?? 'n/a'} titles re-observed in the call (the rest were re-read in the background as the notifications arrived).`,
        `- Warm results identical to the cold scan: first keystroke **${sameFirst ? 'yes' : 'NO'}**, last keystroke **${sameLast ? 'yes' : 'NO'}**, after the appends **${sameAfter ? 'yes' : 'NO'}**.`,
        `- View: ${stats?.watched ?? 0} directories watched (${stats?.watchFailures ?? 0} failures), ${stats?.builds ?? 0} build, ${stats?.refreshes ?? 0} refreshes, ${stats?.rechecked ?? 0} directory checks, ${stats?.sweeps ?? 0} sweeps, ${stats?.notifications ?? 0} notifications. Process heap after the run: ${(memory.heapUsed / 2 ** 20).toFixed(0)} MiB used, RSS ${(memory.rss / 2 ** 20).toFixed(0)} MiB.`,
      ].join('\n');
    } finally {
      await engine.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function timed<T>(times: number[], run: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const value = await run();
  times.push(performance.now() - start);
  return value;
}
