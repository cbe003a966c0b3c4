/**
 * The pure log model against real dsh-written logs (dsh-small/raw). Packed chunk rows (§9.7) are not decoded
 * here — that is the storage decoder's job — but each row stands for `texts.length` / `args.length` log-only
 * `assistant/chunk` events, so it is replaced by that many placeholder chunk events with the row's seqs. The
 * model never looks inside chunk data, so surfaces, titles and closers are exactly dsh's.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isCompactionCheckpoint } from '../../src/protocol/checkpoint.js';
import type { SessionEvent, SurfaceEventType } from '../../src/protocol/events.js';
import { checkMessageShape } from '../../src/protocol/message-shape.js';
import { validateStoredSession } from '../../src/protocol/session-validation.js';
import { classifyEvents, deriveModelMessages, foldSurface } from '../../src/protocol/surface-fold.js';
import { foldTitle } from '../../src/protocol/title-fold.js';
import { DSH_SMALL, fixtureSessions, readExpected } from '../support/fixtures.js';

interface ExpectedSurface {
  readonly session: { readonly id: string };
  readonly capturedThroughSeq: number | null;
  readonly events: ReadonlyArray<{ readonly type: SurfaceEventType; readonly seq: number; readonly data: unknown }>;
}

interface ExpectedTitle {
  readonly sessionId: string;
  readonly status: string;
  readonly value?: { readonly title?: unknown };
}

const ROW_TAGS = new Set(['text-chunks', 'reasoning-chunks', 'tool-call-chunks']);

/** The header record of §9.6: the header line's fields without `type`, optional ones only when present. */
function headerRecord(line: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { version: line['version'], id: line['id'], createdAt: line['createdAt'] };
  for (const key of ['cwd', 'parentSession', 'seedLength', 'origin']) if (line[key] !== undefined) out[key] = line[key];
  out['delegationDepth'] = line['delegationDepth'];
  if (line['agentPreset'] !== undefined) out['agentPreset'] = line['agentPreset'];
  return out;
}

/** Reads a raw fixture log: the header record and its events, chunk rows as placeholder chunk events. */
function readRawLog(path: string): { header: Record<string, unknown>; events: unknown[] } {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0);
  const header = headerRecord(JSON.parse(lines[0]!) as Record<string, unknown>);
  const events: unknown[] = [];
  for (const line of lines.slice(1)) {
    const value = JSON.parse(line) as Record<string, unknown>;
    if (!ROW_TAGS.has(value['type'] as string)) {
      events.push(value);
      continue;
    }
    const data = value['data'] as { texts?: unknown[]; args?: unknown[]; dt: number[] };
    const members = (data.texts ?? data.args)!.length;
    let time = value['time0'] as number;
    for (let k = 0; k < members; k++) {
      if (k > 0) time += data.dt[k - 1]!;
      events.push({ type: 'assistant/chunk', seq: (value['seq0'] as number) + k, time, data: { placeholder: true } });
    }
  }
  return { header, events };
}

/** sessions.tsv rows by id: balanced event count, surface length, checkpoints in the log. */
function sessionTable(): Map<string, { events: number; surface: number; checkpoints: number }> {
  const rows = readFileSync(`${DSH_SMALL}/sessions.tsv`, 'utf8').trim().split('\n').slice(1);
  const table = new Map<string, { events: number; surface: number; checkpoints: number }>();
  for (const row of rows) {
    const [id, , events, surface, , compaction] = row.split('\t');
    const checkpoints = /(\d+) checkpoints/.exec(compaction ?? '')?.[1];
    table.set(id!, { events: Number(events), surface: Number(surface), checkpoints: checkpoints === undefined ? 0 : Number(checkpoints) });
  }
  return table;
}

const surfaces = new Map(readExpected<ExpectedSurface[]>('surfaces.json').map((entry) => [entry.session.id, entry]));
const titles = new Map(readExpected<ExpectedTitle[]>('titles.json').map((entry) => [entry.sessionId, entry]));
const table = sessionTable();

describe('dsh-small fixtures through the pure model', () => {
  const sessions = fixtureSessions();

  it('covers every fixture session', () => {
    expect(sessions.length).toBe(14);
    expect(new Set(sessions.map((session) => session.id))).toEqual(new Set(surfaces.keys()));
  });

  for (const session of sessions) {
    it(`${session.id}: validation, surface, closers, title and checkpoints match dsh`, () => {
      const { header, events: stored } = readRawLog(session.rawPath);
      const { meta, events } = validateStoredSession({ requestedId: session.id, header, storedEvents: stored, path: session.rawPath });
      const expectedSurface = surfaces.get(session.id)!;
      const row = table.get(session.id)!;

      expect(JSON.stringify(meta)).toBe(JSON.stringify(expectedSurface.session));
      expect(events.length).toBe(row.events);
      expect(events.at(-1)?.seq ?? null).toBe(expectedSurface.capturedThroughSeq);

      const fold = foldSurface(events);
      const current = fold.surfaceSeqs().map((seq) => events[seq]!);
      expect(current.length).toBe(row.surface);
      expect(current.map((event) => JSON.stringify(event))).toEqual(expectedSurface.events.map((event) => JSON.stringify(event)));
      expect(deriveModelMessages(events, fold)).toHaveLength(
        current.filter(
          (event) => event.type !== 'assistant/message' || (event.data as { message: { content: unknown[] } }).message.content.length > 0,
        ).length,
      );
      const classes = classifyEvents(events, fold);
      expect(classes.filter((label) => label === 'current')).toHaveLength(row.surface);

      const expectedTitle = titles.get(session.id)!;
      expect(expectedTitle.status).toBe('fulfilled');
      expect(JSON.stringify(foldTitle(events))).toBe(JSON.stringify(expectedTitle.value?.title));

      const checkpoints = events.filter((event: SessionEvent) => event.type === 'user/message' && isCompactionCheckpoint(event.data));
      expect(checkpoints).toHaveLength(row.checkpoints);
    });
  }

  it('every expected surface event passes the message-shape rules', () => {
    let checked = 0;
    for (const entry of surfaces.values()) {
      for (const event of entry.events) {
        checkMessageShape(event.type, event.data, `session event at seq ${event.seq}`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(500);
  });
});
