/**
 * Crash points (DCP.md §13.3, SESSION-LOG.md §9.12, HOST.md §2.1): a DCP-active log — committed DCP brackets
 * (compress, expansion, recompression), a committed native bracket and a failed native attempt — is cut at every
 * event boundary. Each prefix, closed the way inspection closes a crashed log, loads as a seed; its last bracket
 * classifies as §13.3's table says for the bracket events the prefix holds; and the cold DCP index of the loaded
 * session holds exactly the blocks whose checkpoints the prefix holds, each once.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { interruptedTurnClosers } from '../../../../src/protocol/closers.js';
import type { CompactionClass } from '../../../../src/protocol/dcp/crash-classification.js';
import { classifyCompaction } from '../../../../src/protocol/dcp/crash-classification.js';
import { Session } from '../../../../src/main/stand-in/host/session.js';
import type { DcpHarness } from './dcp-harness.js';
import { coldIndex } from './dcp-harness.js';
import { appendFailedNativeAttempt, dcpActiveSession } from './dcp-active-session.js';
import { bracketPositions, expectedClass } from './crash-oracle.js';
import type { BracketPositions } from './crash-oracle.js';

describe('DCP.md §13.3: every event boundary of a DCP-active log', () => {
  let harness: DcpHarness;
  let events: readonly SessionEvent[];
  let brackets: BracketPositions[];
  /** Block ref → checkpoint seq, from the cold index of the whole log. */
  let blockSeqs: Map<string, number>;

  beforeAll(async () => {
    harness = await dcpActiveSession();
    const session = harness.session;
    // A failed native attempt at the end, so that every crash class occurs in some prefix.
    appendFailedNativeAttempt(session);
    events = structuredClone(session.events);
    brackets = bracketPositions(events);
    blockSeqs = new Map(
      coldIndex(harness, events)
        .blocks()
        .map((block) => [block.ref, block.seq]),
    );
  });

  it('the log holds the bracket shapes the cut must walk through', () => {
    // Compress b1, expansion b2, recompression b3, the native bracket and the failed native attempt.
    expect(brackets.length).toBe(5);
    expect(brackets.filter((bracket) => bracket.checkpoint !== undefined && bracket.end !== undefined)).toHaveLength(4);
    expect(brackets.at(-1)!.id).toBe('native-failed');
    expect(brackets.at(-1)!.checkpoint).toBeUndefined();
    expect([...blockSeqs.keys()].sort()).toEqual(['b1', 'b2', 'b3']);
    expect(classifyCompaction(events).class).toBe('failed-attempt');
  });

  it('each prefix loads, classifies per the table and keeps every committed block exactly once', () => {
    const seen = new Set<CompactionClass>();
    for (let length = 0; length <= events.length; length += 1) {
      const prefix = events.slice(0, length);
      const closed = [...prefix, ...interruptedTurnClosers(prefix)];
      const before = classifyCompaction(closed);
      expect(before.class, `prefix ${length} before load`).toBe(expectedClass(brackets, length, false));
      let session: Session;
      try {
        session = Session.create(harness.session.id, { header: harness.session.header, seed: structuredClone(closed) });
      } catch (error) {
        throw new Error(`prefix ${length} does not load: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      const after = classifyCompaction(session.events);
      expect(after.class, `prefix ${length} after load`).toBe(expectedClass(brackets, length, true));
      seen.add(before.class);
      seen.add(after.class);
      // After the load's end-seed nothing is busy: an orphan left by the crash is stale (§13.2, §13.3).
      expect(after.busy, `prefix ${length} busy after load`).toBe(false);
      expect(session.openBrackets(), `prefix ${length} open brackets`).toEqual([]);

      const blocks = coldIndex(harness, session.events).blocks();
      const refs = blocks.map((block) => block.ref);
      expect(new Set(refs).size, `prefix ${length} duplicated blocks`).toBe(refs.length);
      const expected = [...blockSeqs].filter(([, seq]) => seq < length);
      expect(blocks.map((block) => [block.ref, block.seq]).sort(), `prefix ${length} blocks`).toEqual(expected.sort());
      const counted = blocks.filter(
        (block) =>
          block.membership === 'active' ||
          block.membership === 'consumed' ||
          block.membership === 'expanded' ||
          block.membership === 'absorbed-native',
      );
      expect(counted.length).toBe(expected.length);
    }
    expect([...seen].sort()).toEqual([
      'committed',
      'failed-attempt',
      'live-orphan-start',
      'none',
      'recovered-unclosed',
      'stale-orphan-start',
      'summary-without-replace',
    ]);
  });
});
