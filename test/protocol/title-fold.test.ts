import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../src/protocol/events.js';
import { foldTitle } from '../../src/protocol/title-fold.js';
import { logOnly, userMessage } from './event-builders.js';

const title = (seq: number, data: unknown, time = 1000 + seq): SessionEvent => ({ type: 'session/title', seq, time, data });

describe('§6.2 title fold', () => {
  it('no title event → undefined', () => {
    expect(foldTitle([])).toBeUndefined();
    expect(foldTitle([userMessage(0, 'x'), logOnly(1)])).toBeUndefined();
  });

  it('item 63: persisted title at seq 0, time 20', () => {
    const snapshot = foldTitle([title(0, { title: 'Persisted title', messageSeqs: [], source: { kind: 'user' } }, 20)]);
    expect(snapshot).toMatchObject({ title: 'Persisted title', eventSeq: 0, updatedAt: 20 });
    expect(JSON.stringify(snapshot)).toBe(
      '{"title":"Persisted title","messageSeqs":[],"source":{"kind":"user"},"eventSeq":0,"updatedAt":20}',
    );
  });

  it('the last title in log order wins; the snapshot is deep-frozen and detached', () => {
    const model = { provider: 'oracle', model: 'm1' };
    const seqs = [4, 5];
    const last = title(3, { title: 'Second', messageSeqs: seqs, source: { kind: 'provider', provider: 'first-prompt', model } }, 77);
    const snapshot = foldTitle([
      title(0, { title: 'First', messageSeqs: [1], source: { kind: 'fallback' } }),
      logOnly(1),
      userMessage(2, 'x'),
      last,
      logOnly(4),
    ]);
    expect(JSON.stringify(snapshot)).toBe(
      '{"title":"Second","messageSeqs":[4,5],"source":{"kind":"provider","provider":"first-prompt","model":{"provider":"oracle","model":"m1"}},"eventSeq":3,"updatedAt":77}',
    );
    expect(Object.isFrozen(snapshot)).toBe(true);
    expect(Object.isFrozen(snapshot!.messageSeqs)).toBe(true);
    expect(Object.isFrozen((snapshot!.source as { model: object }).model)).toBe(true);
    expect(snapshot!.messageSeqs).not.toBe(seqs);
    expect((snapshot!.source as { model: object }).model).not.toBe(model);
    expect(Object.isFrozen(model)).toBe(false);
  });

  it('copies sources: fallback/user without extras, provider with model only when defined', () => {
    const fold = (source: unknown): unknown => foldTitle([title(0, { title: 't', messageSeqs: [], source })])!.source;
    expect(fold({ kind: 'fallback', extra: 1 })).toEqual({ kind: 'fallback' });
    expect(fold({ kind: 'user', extra: 1 })).toEqual({ kind: 'user' });
    expect(JSON.stringify(fold({ kind: 'provider', provider: 'p', extra: 1 }))).toBe('{"kind":"provider","provider":"p"}');
    expect(Object.keys(fold({ kind: 'provider', provider: 'p' }) as object)).toEqual(['kind', 'provider']);
    expect(fold({ kind: 'provider', provider: 'p', model: null })).toEqual({ kind: 'provider', provider: 'p', model: {} });
    expect(fold({ kind: 'provider', provider: 'p', model: { model: 'm', provider: 'q', x: 1 } })).toEqual({
      kind: 'provider',
      provider: 'p',
      model: { model: 'm', provider: 'q', x: 1 },
    });
  });

  it('copies the title as is and spreads messageSeqs as an iterable (a string spreads into characters)', () => {
    expect(foldTitle([title(0, { title: 42, messageSeqs: 'ab', source: { kind: 'user' } })])).toEqual({
      title: 42,
      messageSeqs: ['a', 'b'],
      source: { kind: 'user' },
      eventSeq: 0,
      updatedAt: 1000,
    });
  });

  it('item 70: missing or non-iterable messageSeqs, non-object data and missing sources throw TypeError', () => {
    for (const messageSeqs of [undefined, null, 5, { 0: 1 }]) {
      expect(() => foldTitle([title(0, { title: 't', messageSeqs, source: { kind: 'user' } })])).toThrow(TypeError);
    }
    expect(() => foldTitle([title(0, { title: 't', source: { kind: 'user' } })])).toThrow(TypeError);
    for (const data of [null, 5, 'text']) {
      expect(() => foldTitle([title(0, data)])).toThrow(TypeError);
    }
    for (const source of [undefined, null]) {
      expect(() => foldTitle([title(0, { title: 't', messageSeqs: [], source })])).toThrow(TypeError);
    }
  });

  it('an unknown source kind throws a plain Error', () => {
    let thrown: unknown;
    try {
      foldTitle([title(0, { title: 't', messageSeqs: [], source: { kind: 'robot' } })]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).not.toBeInstanceOf(TypeError);
  });

  it('only the last title is read: an older malformed title does not matter', () => {
    expect(foldTitle([title(0, null), title(1, { title: 'ok', messageSeqs: [], source: { kind: 'user' } })])?.title).toBe('ok');
  });
});
