/**
 * The events a child writer appends, without importing vitest (a child process starts in a fraction of the time):
 * closed turns shaped like `test/main/engine/store/store-test-builders.ts`'s `EventSequence.closedTurn`, and its `noiseText`.
 */
import type { SessionEvent } from '../../src/protocol/events.js';
import { noiseText } from '../support/seeded-random.js';

export { noiseText };

/** The prompt of the turn starting at `seq` written by the child tagged `tag`. */
export function promptOf(tag: string, seq: number, bytes: number): string {
  return `${tag}@${seq}:${noiseText(bytes, seq + 1)}`;
}

/**
 * One closed turn starting at `seq`: turn/start, step/start, the user prompt, two text deltas, the assistant
 * answer, step/end, turn/end (8 events).
 */
export function closedTurn(seq: number, turn: number, prompt: string): SessionEvent[] {
  const base = 1_767_225_600_000;
  const at = (offset: number): { seq: number; time: number } => ({ seq: seq + offset, time: base + 10 * (seq + offset) });
  return [
    { type: 'turn/start', ...at(0), data: { turn } },
    { type: 'step/start', ...at(1), data: { turn, step: 1 } },
    {
      type: 'user/message',
      ...at(2),
      data: { id: `user-${seq + 2}`, role: 'user', content: [{ type: 'text', text: prompt }], source: { kind: 'user' } },
      surfaceOp: 'append',
    },
    { type: 'assistant/chunk', ...at(3), data: { turn, step: 1, chunk: { type: 'text-delta', index: 0, text: 'x' } } },
    { type: 'assistant/chunk', ...at(4), data: { turn, step: 1, chunk: { type: 'text-delta', index: 0, text: 'y' } } },
    {
      type: 'assistant/message',
      ...at(5),
      data: {
        turn,
        step: 1,
        message: {
          id: `assistant-${seq + 5}`,
          role: 'assistant',
          content: [{ type: 'text', text: 'xy' }],
          source: { kind: 'model', provider: 'deepseek', model: 'deepseek-chat' },
        },
      },
      surfaceOp: 'append',
    },
    { type: 'step/end', ...at(6), data: { turn, step: 1 } },
    { type: 'turn/end', ...at(7), data: { turn, reason: { kind: 'completed' } } },
  ] as SessionEvent[];
}
