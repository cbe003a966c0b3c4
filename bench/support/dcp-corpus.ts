/**
 * The DCP corpus of DCP.md §19: a deterministic, host-valid log of plain turns and tool steps with DCP markers,
 * repeated reads and periodic standalone native brackets. Used by the P6 benchmark and the work-counter tests.
 *
 * A plain turn is 7 events: `turn/start`, `step/start`, marker, a 200-char user text, a 400-char assistant text,
 * `step/end`, `turn/end`. Every 4th turn also has a tool step (`step/start`, marker, an assistant with one call,
 * `tool/call`, a 2 KB `tool/result`, `step/end`), placed first so that the text step answers after the result;
 * every 16th call repeats an earlier read. Every 64 turns a standalone native bracket absorbs the 10 oldest
 * surface nodes — extended to the next pairing-balanced cut when the 10th node would split a call from its
 * result, so that later cuts stay usable.
 */
import type { SessionEvent } from '../../src/protocol/events.js';
import { estimateEvent } from '../../src/protocol/token-estimator.js';

/** Text of `length` chars, varied by `seed` so that messages differ. */
function text(seed: number, length: number): string {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'];
  let out = '';
  for (let index = 0; out.length < length; index += 1) out += `${words[(seed + index * 7) % words.length]} `;
  return out.slice(0, length);
}

/** A marker text as DCP writes it. */
function markerText(number: number, turn: number, step: number): string {
  return `<dcp-boundary ref="m${String(number).padStart(4, '0')}" turn="${turn}" step="${step}" />`;
}

/** The builder state. */
class CorpusBuilder {
  readonly events: SessionEvent[] = [];
  /** Current surface seqs in position order. */
  readonly surface: number[] = [];
  /** Pairing contribution of each surface node by seq. */
  readonly #pairing = new Map<number, number>();
  #markers = 0;
  #calls = 0;
  #natives = 0;

  push(type: string, data: unknown, extra: Partial<Pick<SessionEvent, 'surfaceOp' | 'sourceEventSeqs'>> = {}): SessionEvent {
    const seq = this.events.length;
    const event: SessionEvent = {
      type,
      seq,
      time: 1_760_000_000_000 + seq,
      data,
      ...(extra.sourceEventSeqs === undefined ? {} : { sourceEventSeqs: extra.sourceEventSeqs }),
      ...(extra.surfaceOp === undefined ? {} : { surfaceOp: extra.surfaceOp }),
    };
    this.events.push(event);
    return event;
  }

  node(type: string, data: unknown, pairing = 0, sourceEventSeqs?: number[]): number {
    const event = this.push(type, data, { surfaceOp: 'append', ...(sourceEventSeqs === undefined ? {} : { sourceEventSeqs }) });
    this.surface.push(event.seq);
    this.#pairing.set(event.seq, pairing);
    return event.seq;
  }

  marker(turn: number, step: number): void {
    this.#markers += 1;
    this.node('user/message', {
      source: { kind: 'plugin', plugin: 'dsh-dcp' },
      content: [{ type: 'text', text: markerText(this.#markers, turn, step) }],
      role: 'user',
      id: `marker-${this.#markers}`,
    });
  }

  assistant(turn: number, step: number, content: unknown[], pairing = 0): void {
    this.node(
      'assistant/message',
      {
        turn,
        step,
        message: {
          role: 'assistant',
          content,
          source: { kind: 'model', provider: 'bench', model: 'bench-1' },
          id: `a-${this.events.length}`,
        },
      },
      pairing,
    );
  }

  plainStep(turn: number, step: number, withUser: boolean): void {
    if (withUser)
      this.node('user/message', {
        source: { kind: 'user' },
        content: [{ type: 'text', text: text(turn, 200) }],
        role: 'user',
        id: `u-${turn}`,
      });
    this.assistant(turn, step, [{ type: 'text', text: text(turn * 3, 400) }]);
  }

  toolCall(turn: number, step: number): void {
    this.#calls += 1;
    const callId = `call-${this.#calls}`;
    const fileNumber = this.#calls % 16 === 0 ? this.#calls - 8 : this.#calls;
    const args = JSON.stringify({ file_path: `src/file-${fileNumber}.ts` });
    this.assistant(turn, step, [{ type: 'tool-call', id: callId, name: 'read', arguments: args }], 1);
    const call = this.push('tool/call', { turn, step, callId, name: 'read', arguments: args });
    this.node(
      'tool/result',
      {
        turn,
        step,
        message: {
          source: { kind: 'tool', callId },
          content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text: text(fileNumber, 2048) }], isError: false }],
          role: 'user',
          id: `r-${callId}`,
        },
      },
      -1,
      [call.seq],
    );
  }

  turn(turn: number): void {
    this.push('turn/start', { turn });
    this.push('step/start', { turn, step: 1 });
    this.marker(turn, 0);
    if (turn % 4 === 0) {
      this.node('user/message', {
        source: { kind: 'user' },
        content: [{ type: 'text', text: text(turn, 200) }],
        role: 'user',
        id: `u-${turn}`,
      });
      this.toolCall(turn, 1);
      this.push('step/end', { turn, step: 1 });
      this.push('step/start', { turn, step: 2 });
      this.marker(turn, 1);
      this.plainStep(turn, 2, false);
      this.push('step/end', { turn, step: 2 });
    } else {
      this.plainStep(turn, 1, true);
      this.push('step/end', { turn, step: 1 });
    }
    this.push('turn/end', { turn, reason: { kind: 'completed' } });
  }

  /** A standalone native bracket over the 10 oldest nodes (extended to a balanced cut). */
  native(): void {
    let count = 0;
    let balance = 0;
    while (count < this.surface.length && (count < 10 || balance !== 0)) {
      balance += this.#pairing.get(this.surface[count] as number) ?? 0;
      count += 1;
    }
    if (count === 0) return;
    const shadowed = this.surface.slice(0, count);
    this.#natives += 1;
    const compactionId = `native-${this.#natives}`;
    const tokens = shadowed.reduce((sum, seq) => sum + estimateEvent(this.events[seq] as SessionEvent), 0);
    const start = this.push('compaction/start', { compactionId, turn: null });
    const first = shadowed[0] as number;
    const last = shadowed[shadowed.length - 1] as number;
    const summaryText = `Native summary ${this.#natives}: ${text(this.#natives, 300)}`;
    const summary = this.push('compaction/summary', {
      compactionId,
      summary: [{ type: 'text', text: summaryText }],
      shadowedRange: { start: first, end: last },
      shadowedSeqs: shadowed,
      shadowedTokenCount: tokens,
      provider: 'bench',
      model: 'bench-1',
    });
    const checkpoint = this.push(
      'user/message',
      {
        source: { kind: 'plugin', plugin: 'compact', compactionId },
        content: [{ type: 'text', text: summaryText }],
        role: 'user',
        id: `native-${this.#natives}`,
      },
      {
        surfaceOp: { op: 'replace', start: first, end: last },
        sourceEventSeqs: [start.seq, summary.seq, ...shadowed],
      },
    );
    this.surface.splice(0, count, checkpoint.seq);
    this.#pairing.set(checkpoint.seq, 0);
    this.push('compaction/end', { compactionId, turn: null });
  }
}

/** A corpus of at least `targetEvents` events, ending at a turn boundary. Deterministic. */
export function generateDcpCorpus(targetEvents: number): SessionEvent[] {
  const builder = new CorpusBuilder();
  for (let turn = 1; builder.events.length < targetEvents; turn += 1) {
    builder.turn(turn);
    if (turn % 64 === 0) builder.native();
  }
  return builder.events;
}
