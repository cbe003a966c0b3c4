import { describe, expect, it } from 'vitest';
import { classifyBracketFacts, classifyCompaction } from '../../../src/protocol/dcp/crash-classification.js';
import type { SessionEvent } from '../../../src/protocol/events.js';

let seq = 0;
const event = (type: string, data: unknown, extra: Partial<SessionEvent> = {}): SessionEvent => ({
  type,
  seq: seq++,
  time: 1,
  data,
  ...extra,
});
const start = (id: string) => event('compaction/start', { compactionId: id, turn: 1 });
const summary = (id: string) =>
  event('compaction/summary', {
    compactionId: id,
    summary: [],
    shadowedRange: { start: 0, end: 0 },
    shadowedSeqs: [0],
    shadowedTokenCount: 1,
  });
const checkpoint = (id: string) =>
  event(
    'user/message',
    { source: { kind: 'plugin', plugin: 'compact', compactionId: id }, content: [{ type: 'text', text: 's' }], role: 'user', id: 'm' },
    { surfaceOp: { op: 'replace', start: 0, end: 0 } },
  );
const end = (id: string, error?: string) =>
  event('compaction/end', error === undefined ? { compactionId: id, turn: 1 } : { compactionId: id, turn: 1, error: { message: error } });
const endSeed = () => event('session/end-seed', {});
const user = () => event('user/message', { source: { kind: 'user' }, content: [], role: 'user', id: 'u' }, { surfaceOp: 'append' });

describe('§18 item 52: crash ladder', () => {
  it('none → live-orphan-start → summary-without-replace → recovered-unclosed → committed', () => {
    const log: SessionEvent[] = [user()];
    expect(classifyCompaction(log)).toEqual({ class: 'none', stale: false, busy: false, compactionId: undefined });
    log.push(start('x'));
    expect(classifyCompaction(log)).toEqual({ class: 'live-orphan-start', stale: false, busy: true, compactionId: 'x' });
    log.push(summary('x'));
    expect(classifyCompaction(log)).toMatchObject({ class: 'summary-without-replace', busy: true });
    log.push(checkpoint('x'));
    expect(classifyCompaction(log)).toMatchObject({ class: 'recovered-unclosed', busy: true });
    log.push(end('x'));
    expect(classifyCompaction(log)).toMatchObject({ class: 'committed', busy: false });

    log.push(start('y'), summary('y'), end('y', 'append failed'));
    expect(classifyCompaction(log)).toMatchObject({ class: 'failed-attempt', busy: false, compactionId: 'y' });
  });

  it('a later purge checkpoint with another id does not turn a failed attempt into committed', () => {
    const log = [start('y'), summary('y'), end('y', 'boom'), checkpoint('purge-other')];
    expect(classifyCompaction(log).class).toBe('failed-attempt');
  });

  it('start then session/end-seed → stale-orphan-start (not busy); a fresh start after it is live again', () => {
    const log = [start('z'), endSeed()];
    expect(classifyCompaction(log)).toEqual({ class: 'stale-orphan-start', stale: true, busy: false, compactionId: 'z' });
    log.push(start('w'));
    expect(classifyCompaction(log)).toMatchObject({ class: 'live-orphan-start', stale: false, busy: true });
  });

  it('an unclosed class with an end-seed after it is stale and not busy', () => {
    expect(classifyCompaction([start('a'), summary('a'), endSeed()])).toEqual({
      class: 'summary-without-replace',
      stale: true,
      busy: false,
      compactionId: 'a',
    });
    expect(classifyCompaction([start('a'), checkpoint('a'), endSeed()])).toMatchObject({
      class: 'recovered-unclosed',
      stale: true,
      busy: false,
    });
  });

  it('only events after the last start count (ids may repeat in old logs)', () => {
    expect(classifyCompaction([start('a'), summary('a'), checkpoint('a'), end('a'), start('a')]).class).toBe('live-orphan-start');
    expect(classifyCompaction([start('a'), end('a'), start('b'), end('a')]).class).toBe('live-orphan-start');
  });

  it('a fork before the orphan start has no bracket: none', () => {
    const parent = [user(), user(), start('q')];
    expect(classifyCompaction(parent.slice(0, 2))).toMatchObject({ class: 'none', busy: false });
  });

  it('classification from facts covers the table order', () => {
    const facts = { compactionId: 'k', endAfterStart: true, checkpointAfterStart: true, summaryAfterStart: true, endSeedAfterStart: true };
    expect(classifyBracketFacts(facts).class).toBe('committed');
    expect(classifyBracketFacts({ ...facts, checkpointAfterStart: false }).class).toBe('failed-attempt');
    expect(classifyBracketFacts({ ...facts, endAfterStart: false })).toMatchObject({
      class: 'recovered-unclosed',
      stale: true,
      busy: false,
    });
    expect(classifyBracketFacts({ ...facts, compactionId: undefined }).class).toBe('none');
  });
});
