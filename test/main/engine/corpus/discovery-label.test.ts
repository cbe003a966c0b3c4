/**
 * The one discovery label (SESSION-REFERENCE.md §7.3 step 6): the folded title of a fulfilled observation, else the
 * id; display-escaped; a rejected observation, a log without a title and a title that is not text all fall back to
 * the id. Every face labels through these functions, so one session has one label in the CLI, MCP and the Web.
 */
import { describe, expect, it } from 'vitest';
import { discoveryLabel, observedTitle, observedTitles } from '../../../../src/main/engine/corpus/discovery-label.js';
import type { SessionTitleObservation } from '../../../../src/main/engine/corpus/session-query.js';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { SessionHeader } from '../../../../src/protocol/events.js';

const header = { version: 0, id: 's', createdAt: 0 } as unknown as SessionHeader;

function titled(id: string, title: unknown): SessionTitleObservation {
  return {
    sessionId: asSessionId(id),
    status: 'fulfilled',
    value: { session: header, title: { title, messageSeqs: [], source: 'model', eventSeq: 3, updatedAt: 0 } as never },
  };
}

describe('the discovery label', () => {
  it("is the observed title, display-escaped; else the session's id, display-escaped", () => {
    expect(discoveryLabel('s1', titled('s1', 'Fix the OOM'))).toBe('Fix the OOM');
    // A control character in a title or an id is shown escaped, never raw (display-escape.ts).
    expect(discoveryLabel('s1', titled('s1', 'bell\u0007'))).toBe('bell\\u{0007}');
    expect(discoveryLabel('id\u0007', undefined)).toBe('id\\u{0007}');
  });

  it('falls back to the id for a rejected observation, a log without a title and a title that is not text', () => {
    const rejected: SessionTitleObservation = { sessionId: asSessionId('s2'), status: 'rejected', reason: new Error('corrupt') };
    const untitled: SessionTitleObservation = { sessionId: asSessionId('s3'), status: 'fulfilled', value: { session: header } };
    expect(discoveryLabel('s2', rejected)).toBe('s2');
    expect(discoveryLabel('s3', untitled)).toBe('s3');
    expect(discoveryLabel('s4', titled('s4', 42))).toBe('s4');
    expect(observedTitle(titled('s4', { title: 'nested' }))).toBeUndefined();
  });

  it('collects the raw titles of the observations that have one, by id', () => {
    const titles = observedTitles([
      titled('a', 'Alpha'),
      { sessionId: asSessionId('b'), status: 'rejected', reason: undefined },
      titled('c', 'Gamma\u0007'),
    ]);
    expect([...titles]).toEqual([
      ['a', 'Alpha'],
      ['c', 'Gamma\u0007'],
    ]);
  });
});
