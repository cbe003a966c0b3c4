// Discovery's repeated-keystroke memo with live sessions attached (issue 27 item 3: one live session — the citing one,
// in a real host — made every keystroke list, order, observe and match every session again). The memo keeps the
// previous answer only while the live sessions are the same objects and each one's title, folded again from its
// events when the log grew, is what it was: a title appended in place to a live log, a session attached, detached or replaced under
// the same id is seen on the next call, exactly as an engine with no memory of the previous call sees it.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { EventSequence, makeTempDir, removeTempDir, sessionHeader, BASE_TIME } from '../store/store-test-builders.js';

const TARGET = { id: 'citing', session: { header: { cwd: '/w/app' } } };

/** What discovery answers for `query`: ids and labels. */
async function found(engine: LocalSessionEngine, query: string): Promise<string[]> {
  return (await engine.listCandidates(TARGET, query, 50)).map((candidate) => `${candidate.sessionId}:${candidate.label}`);
}

describe('discovery with live sessions: the repeated-answer memo', () => {
  it('sees a title appended to a live log in place, and attach, detach and replace, on the next call', async () => {
    const dir = await makeTempDir();
    const root = join(dir, 'root');
    try {
      const store = await JsonlSessionStore.open({ root, compression: 'none', titleIndex: false });
      for (let index = 0; index < 30; index += 1) {
        const seq = new EventSequence();
        await store.create(sessionHeader(`persisted-${index}`, '/w/app', { createdAt: BASE_TIME + index }), [
          ...seq.closedTurn(1, `question ${index}`, ['answer']),
          seq.sessionTitle(`Persisted topic ${index}`, [2]),
        ]);
      }
      const engine = await createEngine({ root, compression: 'none', workers: false, store: { cacheDirectory: join(dir, 'cache') } });
      try {
        const seq = new EventSequence();
        const events: SessionEvent[] = seq.closedTurn(1, 'live question', ['live answer']);
        const live: { header: ReturnType<typeof sessionHeader>; events: SessionEvent[] } = {
          header: sessionHeader('live-one', '/w/app', { createdAt: BASE_TIME + 100 }),
          events,
        };
        engine.attachLive(live);
        // Asked twice so the second answer is the memo's.
        expect(await found(engine, 'quokka')).toEqual([]);
        expect(await found(engine, 'live-one')).toEqual(['live-one:live-one']);
        expect(await found(engine, 'live-one')).toEqual(['live-one:live-one']);

        // A title appended to the live log in place: the same LiveSession, the same events array.
        events.push(seq.sessionTitle('Quokka migration plan', [2]));
        expect(await found(engine, 'quokka')).toEqual(['live-one:Quokka migration plan']);
        expect(await found(engine, 'quokka')).toEqual(['live-one:Quokka migration plan']);
        events.push(seq.sessionTitle('Zebra rollout', [2]));
        expect(await found(engine, 'quokka')).toEqual([]);
        expect(await found(engine, 'zebra')).toEqual(['live-one:Zebra rollout']);
        // The same object given a new, longer events array (a host that copies its log on append).
        live.events = [...live.events, seq.sessionTitle('Zebra rollout, phase two', [2])];
        expect(await found(engine, 'phase two')).toEqual(['live-one:Zebra rollout, phase two']);
        expect(await found(engine, 'phase two')).toEqual(['live-one:Zebra rollout, phase two']);

        // A second live session attached, then the first replaced under its id by another object, then detached.
        const otherSeq = new EventSequence();
        const other = {
          header: sessionHeader('live-two', undefined, { createdAt: BASE_TIME + 200 }),
          events: [...otherSeq.closedTurn(1, 'q', ['a']), otherSeq.sessionTitle('Zebra crossing', [2])],
        };
        engine.attachLive(other);
        expect(await found(engine, 'zebra')).toEqual(['live-one:Zebra rollout, phase two', 'live-two:Zebra crossing']);
        const replacedSeq = new EventSequence();
        engine.attachLive({
          header: live.header,
          events: [...replacedSeq.closedTurn(1, 'q', ['a']), replacedSeq.sessionTitle('Okapi notes', [2])],
        });
        expect(await found(engine, 'zebra')).toEqual(['live-two:Zebra crossing']);
        expect(await found(engine, 'okapi')).toEqual(['live-one:Okapi notes']);
        engine.detachLive(live.header.id);
        expect(await found(engine, 'okapi')).toEqual([]);
        expect(await found(engine, 'live-')).toEqual(['live-two:Zebra crossing']);
        // The persisted sessions answered throughout, newest first.
        expect((await found(engine, 'persisted topic 2')).slice(0, 2)).toEqual([
          'persisted-29:Persisted topic 29',
          'persisted-28:Persisted topic 28',
        ]);
        expect(await found(engine, 'persisted topic 2')).toHaveLength(11);
      } finally {
        await engine.close();
      }
    } finally {
      await removeTempDir(dir);
    }
  });
});
