/**
 * Small builders for hand-written session logs in the protocol tests, plus an exact-error assertion.
 * Every builder returns a fresh, mutable, well-formed event (message shapes per SESSION-LOG.md §4.4).
 */
import { expect } from 'vitest';
import type { SessionEvent, SurfaceOp } from '../../src/protocol/events.js';

/** Surface metadata a builder may add, in writer key order (§2.2). */
export interface SurfaceMeta {
  readonly sourceEventSeqs?: readonly number[];
  readonly surfaceOp?: SurfaceOp;
}

function withMeta(type: string, seq: number, data: unknown, meta: SurfaceMeta, time = 1000 + seq): SessionEvent {
  return {
    type,
    seq,
    time,
    data,
    ...(meta.sourceEventSeqs === undefined ? {} : { sourceEventSeqs: [...meta.sourceEventSeqs] }),
    ...(meta.surfaceOp === undefined ? {} : { surfaceOp: meta.surfaceOp }),
  };
}

/** A `user/message` appended with plain text (override `surfaceOp`/provenance through `meta`). */
export function userMessage(
  seq: number,
  text: string,
  meta: SurfaceMeta = { surfaceOp: 'append' },
  source: unknown = { kind: 'user' },
): SessionEvent {
  const data = { id: `user-${seq}`, role: 'user', content: [{ type: 'text', text }], source };
  return withMeta('user/message', seq, data, meta);
}

/** A compaction checkpoint `user/message` (source `plugin: 'compact'`). */
export function checkpoint(seq: number, text: string, meta: SurfaceMeta): SessionEvent {
  return userMessage(seq, text, meta, { kind: 'plugin', plugin: 'compact', compactionId: `c-${seq}` });
}

/** An `assistant/message`; `content` defaults to one text block, tool calls may be added. */
export function assistantMessage(
  seq: number,
  content: unknown[] | string,
  meta: SurfaceMeta = { surfaceOp: 'append' },
  turn = 1,
  step = 1,
): SessionEvent {
  const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  const data = {
    turn,
    step,
    message: { id: `assistant-${seq}`, role: 'assistant', content: blocks, source: { kind: 'model', provider: 'p', model: 'm' } },
  };
  return withMeta('assistant/message', seq, data, meta);
}

/** A tool-call content block. */
export function toolCall(id: string, name = 'read_file'): Record<string, unknown> {
  return { type: 'tool-call', id, name, arguments: '{}' };
}

/** A `tool/result` answering `callId` with one text block. */
export function toolResult(
  seq: number,
  callId: string,
  text: string,
  meta: SurfaceMeta = { surfaceOp: 'append' },
  turn = 1,
  step = 1,
): SessionEvent {
  const data = {
    turn,
    step,
    message: {
      id: `tool-${seq}`,
      role: 'user',
      content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }], isError: false }],
      source: { kind: 'tool', callId },
    },
  };
  return withMeta('tool/result', seq, data, meta);
}

/** A log-only event (default: an `assistant/chunk`). */
export function logOnly(
  seq: number,
  type = 'assistant/chunk',
  data: unknown = { turn: 1, step: 1, chunk: { type: 'text-delta', index: 0, text: 'x' } },
): SessionEvent {
  return { type, seq, time: 1000 + seq, data };
}

/** A replace marker for surface nodes `start..end`. */
export function replace(start: number, end: number): SurfaceOp {
  return { op: 'replace', start, end };
}

/** Asserts that `run` throws an error with exactly this message (and, when given, this name / code / class). */
export function expectError(
  run: () => unknown,
  expected: {
    readonly message: string;
    readonly name?: string;
    readonly code?: string;
    readonly type?: abstract new (...args: never[]) => Error;
  },
): Error {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected a throw with "${expected.message}"`).toBeInstanceOf(Error);
  const error = thrown as Error & { code?: unknown };
  expect(error.message).toBe(expected.message);
  if (expected.name !== undefined) expect(error.name).toBe(expected.name);
  if (expected.code !== undefined) expect(error.code).toBe(expected.code);
  if (expected.type !== undefined) expect(error).toBeInstanceOf(expected.type);
  return error;
}
