// The Session view's projection (surface-view.ts) over dsh's own readSurface answers (dsh-small expected/surfaces.json)
// and, through the server, over the fixture logs. Expected values are read from the fixture files.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionSurfaceSnapshot } from '../../../../src/protocol/events.js';
import { formatSessionReferenceMention } from '../../../../src/protocol/uri/mention-formatter.js';
import type { WebSessionLog, WebTranscriptItem } from '../../../../src/protocol/web/web-api.js';
import { surfaceView } from '../../../../src/main/faces/web/surface-view.js';
import type { RunningWebServer } from '../../../../src/main/faces/web/web-server.js';
import { readExpected } from '../../../support/fixtures.js';
import { callApi, serveFixture } from './web-test-support.js';

const surfaces = readExpected<SessionSurfaceSnapshot[]>('surfaces.json');

/** The fixture session whose log holds a session-reference context (sessions.tsv: "session-reference x1"). */
const CITING = 'session-96692971-d1af-4d7b-a519-2e3dc0969b7e';

function surfaceOf(id: string): SessionSurfaceSnapshot {
  const found = surfaces.find((surface) => surface.session.id === id);
  if (found === undefined) throw new Error(`no surface for ${id}`);
  return found;
}

/** The surface events whose message source has this kind (read straight from the fixture JSON). */
function eventsOfKind(surface: SessionSurfaceSnapshot, kind: string): any[] {
  return surface.events.filter((event: any) => event.type === 'user/message' && event.data.source.kind === kind);
}

describe('surfaceView', () => {
  it('turns the session-reference context into a session-recall attached to the direct message before it', () => {
    const surface = surfaceOf(CITING);
    const [context] = eventsOfKind(surface, 'session-reference');
    const index = surface.events.indexOf(context);
    const direct: any = surface.events[index - 1];
    expect(direct.data.source.kind).toBe('user');
    const view = surfaceView(surface, 'label');
    const recall = view.items.find((item) => item.kind === 'session-recall') as Extract<WebTranscriptItem, { kind: 'session-recall' }>;
    const references: any[] = context.data.source.references;
    expect(recall).toEqual({
      kind: 'session-recall',
      seq: context.seq,
      time: context.time,
      attachedToSeq: direct.seq,
      labels: references.map((reference) => reference.label),
      sources: references.map((reference) => ({
        sessionId: reference.sessionId,
        label: reference.label,
        keptMessages: reference.retainedMessages,
        omittedMessages: reference.omittedMessages,
        omittedBytes: reference.omittedBytes,
        truncated: reference.truncated,
        compacted: reference.compacted,
      })),
      text: context.data.content[0].text,
    });
    // The stored direct message has its mention rewritten to `@label`; its chips come from the context's sources.
    const user = view.items.find((item) => item.kind === 'user' && item.seq === direct.seq);
    expect(user).toEqual({
      kind: 'user',
      seq: direct.seq,
      time: direct.time,
      text: direct.data.content[0].text,
      mentions: references.map((reference) => ({
        sessionId: reference.sessionId,
        label: reference.label,
        mention: formatSessionReferenceMention({ sessionId: reference.sessionId, label: reference.label }),
      })),
    });
    // Exactly one recall, right after its message in the items.
    expect(view.items.filter((item) => item.kind === 'session-recall')).toHaveLength(1);
    expect(view.items[view.items.indexOf(recall) - 1]).toBe(user);
  });

  it('shows every compaction checkpoint as a checkpoint item and every other user message as a user item', () => {
    for (const surface of surfaces) {
      const view = surfaceView(surface, 'label');
      const checkpoints = surface.events.filter(
        (event: any) => event.type === 'user/message' && event.data.source.kind === 'plugin' && event.data.source.plugin === 'compact',
      );
      expect(view.items.filter((item) => item.kind === 'checkpoint').map((item) => item.seq)).toEqual(
        checkpoints.map((event) => event.seq),
      );
      expect(view.items.filter((item) => item.kind === 'user').map((item) => item.seq)).toEqual(
        eventsOfKind(surface, 'user').map((event) => event.seq),
      );
    }
  });

  it('has one item per assistant block and per tool result, in surface order, with the call ids of the log', () => {
    for (const surface of surfaces) {
      const view = surfaceView(surface, 'label');
      const expected: Array<[string, number, string?]> = [];
      for (const event of surface.events as any[]) {
        if (event.type === 'assistant/message') {
          for (const block of event.data.message.content) {
            if (block.type === 'text') expected.push(['assistant', event.seq]);
            else if (block.type === 'reasoning') expected.push(['reasoning', event.seq]);
            else if (block.type === 'tool-call') expected.push(['tool-call', event.seq, block.id]);
          }
        } else if (event.type === 'tool/result') {
          expected.push(['tool-result', event.seq, event.data.message.content[0].toolCallId]);
        }
      }
      const got = view.items
        .filter(
          (item) => item.kind === 'assistant' || item.kind === 'reasoning' || item.kind === 'tool-call' || item.kind === 'tool-result',
        )
        .map((item): [string, number, string?] =>
          item.kind === 'tool-call' || item.kind === 'tool-result' ? [item.kind, item.seq, item.callId] : [item.kind, item.seq],
        );
      expect(got).toEqual(expected);
      // Items follow the surface's order (a checkpoint stands where compaction put it, not at its seq).
      const order = surface.events.map((event) => event.seq);
      const itemOrder = [...new Set(view.items.map((item) => item.seq))];
      expect(itemOrder).toEqual(order);
    }
  });

  it('a session-reference context not right after a direct user message is attached to nothing', () => {
    const surface = surfaceOf(CITING);
    const [context] = eventsOfKind(surface, 'session-reference');
    const alone = { ...surface, events: [context] };
    const view = surfaceView(alone, 'label');
    expect(view.items).toMatchObject([{ kind: 'session-recall', attachedToSeq: null }]);
  });

  it('a user message that still holds a mention shows it as a chip', () => {
    const surface = surfaceOf(CITING);
    const direct: any = eventsOfKind(surface, 'user')[0];
    const mention = formatSessionReferenceMention({ sessionId: 'session-other', label: 'Other work' });
    const edited = { ...direct, data: { ...direct.data, content: [{ type: 'text', text: `See ${mention}.` }] } };
    const view = surfaceView({ ...surface, events: [edited] }, 'label');
    expect(view.items).toEqual([
      {
        kind: 'user',
        seq: direct.seq,
        time: direct.time,
        text: `See ${mention}.`,
        mentions: [{ sessionId: 'session-other', label: 'Other work', mention }],
      },
    ]);
  });
});

describe('sessions/surface over HTTP', () => {
  const served = serveFixture();
  let server: RunningWebServer;
  let cookie: string;
  beforeAll(() => {
    ({ server, cookie } = served());
  });

  it("is surfaceView of dsh's readSurface answer with the session's title as label", async () => {
    const surface = surfaceOf(CITING);
    const { status, reply } = await callApi(server.port, cookie, 'sessions/surface', { sessionId: CITING });
    expect(status).toBe(200);
    expect(reply).toEqual({ ok: true, value: JSON.parse(JSON.stringify(surfaceView(surface, 'Make checkout return 409 when'))) });
  });

  it('a session that does not exist is SESSION_QUERY_SESSION_NOT_FOUND (404)', async () => {
    const { status, reply } = await callApi(server.port, cookie, 'sessions/surface', { sessionId: 'session-nope' });
    expect(status).toBe(404);
    expect(reply).toMatchObject({ ok: false, error: { code: 'SESSION_QUERY_SESSION_NOT_FOUND' } });
  });
});

describe('sessions/log over HTTP (the whole log, issue 28)', () => {
  const served = serveFixture();
  let server: RunningWebServer;
  let cookie: string;
  beforeAll(() => {
    ({ server, cookie } = served());
  });
  const COMPACTED = 'session-547c4005-0b6e-49a0-9497-6be9b6b464cd';

  it("without its replaced messages, the whole log is dsh's current surface; each replaced one names a later replacement", async () => {
    for (const id of [COMPACTED, CITING]) {
      const { status, reply } = await callApi(server.port, cookie, 'sessions/log', { sessionId: id });
      expect(status).toBe(200);
      const log = (reply as { ok: true; value: WebSessionLog }).value;
      const shadowed = new Set(log.shadowed.map((entry) => entry.seq));
      const current = surfaceView(surfaceOf(id), log.label).items;
      // In log order, while a checkpoint sits where its range was on the surface: compared by seq (blocks keep their order).
      const bySeq = (items: readonly WebTranscriptItem[]) => [...items].sort((a, b) => a.seq - b.seq);
      expect(log.items.filter((item) => !shadowed.has(item.seq))).toEqual(bySeq(JSON.parse(JSON.stringify(current))));
      for (const entry of log.shadowed) {
        expect(entry.by).toBeGreaterThan(entry.seq);
        expect(log.replacements.find((r) => r.seq === entry.by)?.replaced).toContain(entry.seq);
      }
    }
    const compacted = (await callApi(server.port, cookie, 'sessions/log', { sessionId: COMPACTED })).reply as { value: WebSessionLog };
    // sessions.tsv: two native compactions, each a checkpoint.
    expect(compacted.value.replacements.map((r) => r.compaction)).toEqual([true, true]);
    expect(compacted.value.shadowed.length).toBe(compacted.value.replacements.reduce((n, r) => n + r.replaced.length, 0));
  });

  it('a session that does not exist is SESSION_QUERY_SESSION_NOT_FOUND (404); a missing id is WEB_INVALID_ARGUMENTS', async () => {
    const missing = await callApi(server.port, cookie, 'sessions/log', { sessionId: 'session-nope' });
    expect(missing.status).toBe(404);
    expect(missing.reply).toMatchObject({ ok: false, error: { code: 'SESSION_QUERY_SESSION_NOT_FOUND' } });
    const empty = await callApi(server.port, cookie, 'sessions/log', { sessionId: '' });
    expect(empty.status).toBe(400);
    expect(empty.reply).toMatchObject({ ok: false, error: { code: 'WEB_INVALID_ARGUMENTS' } });
  });
});
