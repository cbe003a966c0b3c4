/**
 * Generates realistic, valid dsh-format session logs for benchmarks: turns with user prompts,
 * streamed assistant chunks (packable runs), reasoning, tool calls with results, titles.
 */
import { asSessionId } from '../../src/protocol/events.js';
import type { SessionEvent, SessionHeader } from '../../src/protocol/events.js';

/** Shape of a generated session. */
export interface SyntheticSessionOptions {
  readonly id: string;
  readonly cwd?: string;
  readonly createdAt?: number;
  /** Number of turns. */
  readonly turns: number;
  /** Approximate bytes of each user prompt and assistant answer. */
  readonly textBytes: number;
  /** Tool calls per turn (each with a result of `textBytes` bytes). */
  readonly toolCallsPerTurn: number;
  /** Stream chunks per assistant answer (written as packable `assistant/chunk` runs). */
  readonly chunksPerAnswer: number;
}

/** A deterministic pseudo-random text of about `bytes` bytes (ASCII words, some punctuation). */
export function syntheticText(seed: number, bytes: number): string {
  const words = [
    'session',
    'context',
    'retention',
    'budget',
    'checkout',
    'migration',
    'worker',
    'surface',
    'compaction',
    'title',
    'the',
    'a',
    'of',
    'and',
    'to',
    'returns',
    '"quoted"',
    '<tag>',
    'line\n',
  ];
  let state = seed >>> 0 || 1;
  let out = '';
  while (out.length < bytes) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out += `${words[state % words.length]} `;
  }
  return out.slice(0, bytes);
}

/** Builds the header and events of one synthetic session. */
export function syntheticSession(options: SyntheticSessionOptions): { header: SessionHeader; events: SessionEvent[] } {
  const createdAt = options.createdAt ?? 1_767_225_600_000;
  const header: SessionHeader = {
    version: 0,
    id: asSessionId(options.id),
    createdAt,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    delegationDepth: 0,
  };
  const events: SessionEvent[] = [];
  let time = createdAt;
  const push = (event: Omit<SessionEvent, 'seq' | 'time'>): number => {
    const seq = events.length;
    time += 7;
    events.push({
      type: event.type,
      seq,
      time,
      data: event.data,
      ...(event.sourceEventSeqs ? { sourceEventSeqs: event.sourceEventSeqs } : {}),
      ...(event.surfaceOp ? { surfaceOp: event.surfaceOp } : {}),
    });
    return seq;
  };
  const source = { kind: 'model', provider: 'oracle', model: 'oracle-chat-128k' };
  for (let turn = 1; turn <= options.turns; turn += 1) {
    push({ type: 'turn/start', data: { turn } });
    const userSeq = push({
      type: 'user/message',
      data: {
        content: [{ type: 'text', text: syntheticText(turn * 31, options.textBytes) }],
        source: { kind: 'user' },
        role: 'user',
        id: `u-${turn}`,
      },
      surfaceOp: 'append',
    });
    if (turn === 1)
      push({
        type: 'session/title',
        data: { title: `Synthetic session ${options.id}`, messageSeqs: [userSeq], source: { kind: 'fallback' } },
      });
    push({ type: 'step/start', data: { turn, step: 1 } });
    const answer = syntheticText(turn * 17 + 3, options.textBytes);
    const piece = Math.max(1, Math.ceil(answer.length / Math.max(1, options.chunksPerAnswer)));
    for (let offset = 0, index = 0; offset < answer.length && index < options.chunksPerAnswer; offset += piece, index += 1) {
      push({
        type: 'assistant/chunk',
        data: { turn, step: 1, chunk: { type: 'text-delta', index: 0, text: answer.slice(offset, offset + piece) } },
      });
    }
    const calls = Array.from({ length: options.toolCallsPerTurn }, (_, index) => ({
      type: 'tool-call',
      id: `call-${turn}-${index}`,
      name: 'read_file',
      arguments: JSON.stringify({ path: `src/file-${index}.ts` }),
    }));
    push({
      type: 'assistant/message',
      data: {
        turn,
        step: 1,
        message: {
          role: 'assistant',
          content: [{ type: 'reasoning', text: 'thinking about it' }, { type: 'text', text: answer }, ...calls],
          source,
          id: `a-${turn}`,
        },
      },
      surfaceOp: 'append',
    });
    for (const call of calls) {
      const callSeq = push({ type: 'tool/call', data: { turn, step: 1, callId: call.id, name: call.name, arguments: call.arguments } });
      push({
        type: 'tool/result',
        data: syntheticToolResult(turn, call.id, syntheticText(callSeq, options.textBytes)),
        sourceEventSeqs: [callSeq],
        surfaceOp: 'append',
      });
    }
    push({ type: 'step/end', data: { turn, step: 1 } });
    push({ type: 'turn/end', data: { turn, reason: { kind: 'completed' } } });
  }
  return { header, events };
}

/** The `data` of a successful `tool/result` event answering `callId` in step 1 of `turn` (dsh's shape). */
export function syntheticToolResult(turn: number, callId: string, text: string): Record<string, unknown> {
  return {
    turn,
    step: 1,
    message: {
      id: `r-${callId}`,
      role: 'user',
      source: { kind: 'tool', callId },
      content: [{ type: 'tool-result', toolCallId: callId, isError: false, content: [{ type: 'text', text }] }],
    },
  };
}

/** How a generator appends one event (its seq and time are the generator's); returns the event written. */
export type SyntheticEventPush = (
  type: string,
  data: unknown,
  extra?: Partial<Pick<SessionEvent, 'surfaceOp' | 'sourceEventSeqs'>>,
) => SessionEvent;

/**
 * Appends one native compaction as dsh's `compact` plugin writes it — compaction/start, compaction/summary, the
 * checkpoint user message replacing every current node, compaction/end — and leaves `surface` holding the checkpoint.
 * @param push - the generator's append.
 * @param surface - the seqs of the current surface nodes (replaced in place); nothing is written when it is empty.
 * @param compaction - its id, the summary text and the model the summary is attributed to.
 */
export function appendNativeCompaction(
  push: SyntheticEventPush,
  surface: number[],
  compaction: { readonly id: string; readonly summaryText: string; readonly provider: string; readonly model: string },
): void {
  const shadowed = [...surface];
  if (shadowed.length === 0) return;
  const compactionId = compaction.id;
  const first = shadowed[0] as number;
  const last = shadowed[shadowed.length - 1] as number;
  const start = push('compaction/start', { compactionId, turn: null });
  const summary = push('compaction/summary', {
    compactionId,
    summary: [{ type: 'text', text: compaction.summaryText }],
    shadowedRange: { start: first, end: last },
    shadowedSeqs: shadowed,
    shadowedTokenCount: shadowed.length * 10,
    provider: compaction.provider,
    model: compaction.model,
  });
  const checkpoint = push(
    'user/message',
    {
      source: { kind: 'plugin', plugin: 'compact', compactionId },
      content: [{ type: 'text', text: compaction.summaryText }],
      role: 'user',
      id: compactionId,
    },
    { surfaceOp: { op: 'replace', start: first, end: last }, sourceEventSeqs: [start.seq, summary.seq, ...shadowed] },
  );
  surface.splice(0, surface.length, checkpoint.seq);
  push('compaction/end', { compactionId, turn: null });
}
