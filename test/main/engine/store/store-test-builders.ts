/**
 * Hand-built session logs and on-disk helpers for the JSONL store tests: an event builder that numbers
 * events like a live log (SESSION-LOG.md §2–§4), headers, temporary roots, hand-written artifacts, an
 * independent Zstandard frame reader, and exact-error assertions for promises.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import zstdWasm from '@bokuweb/zstd-wasm';
import { expect } from 'vitest';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { SessionEvent, SessionHeader } from '../../../../src/protocol/events.js';
import { initZstd } from '../../../../src/workers/decode/zstd-codec.js';
import { scanZstdFrames } from '../../../../src/workers/decode/zstd-frames.js';
import { noiseText } from '../../../support/seeded-random.js';

/** The epoch-ms time of seq 0 in every built log. */
export const BASE_TIME = 1_767_225_600_000;

/** Provider and model of every built assistant message. */
export const MODEL_SOURCE = { kind: 'model', provider: 'deepseek', model: 'deepseek-chat' } as const;

/**
 * Builds the events of one log in seq order. Each method returns a fresh event whose `seq` is the next
 * index and whose keys are in writer order (`type, seq, time, data`, then `sourceEventSeqs?`, then
 * `surfaceOp?`, SESSION-LOG.md §2.2); `time` defaults to `BASE_TIME + 10 × seq`.
 */
export class EventSequence {
  private nextSeq = 0;

  /** How many events were built so far (the seq of the next one). */
  get length(): number {
    return this.nextSeq;
  }

  /** Skips `count` seqs (events written by someone else, e.g. crash-repair closers). */
  advance(count: number): void {
    this.nextSeq += count;
  }

  private event(type: string, data: unknown, time?: number, surface?: { sourceEventSeqs?: number[]; surfaceOp?: 'append' }): SessionEvent {
    const seq = this.nextSeq++;
    return {
      type,
      seq,
      time: time ?? BASE_TIME + 10 * seq,
      data,
      ...(surface?.sourceEventSeqs === undefined ? {} : { sourceEventSeqs: surface.sourceEventSeqs }),
      ...(surface?.surfaceOp === undefined ? {} : { surfaceOp: surface.surfaceOp }),
    };
  }

  /** `turn/start` `{turn}`. */
  turnStart(turn: number): SessionEvent {
    return this.event('turn/start', { turn });
  }

  /** `turn/end` `{turn, reason}` (completed by default). */
  turnEnd(turn: number, reason: unknown = { kind: 'completed' }): SessionEvent {
    return this.event('turn/end', { turn, reason });
  }

  /** `step/start` `{turn, step}`. */
  stepStart(turn: number, step: number): SessionEvent {
    return this.event('step/start', { turn, step });
  }

  /** `step/end` `{turn, step}`. */
  stepEnd(turn: number, step: number): SessionEvent {
    return this.event('step/end', { turn, step });
  }

  /** An appended `user/message` whose data is the user message itself. */
  userMessage(text: string): SessionEvent {
    const seq = this.nextSeq;
    return this.event(
      'user/message',
      { id: `user-${seq}`, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } },
      undefined,
      { surfaceOp: 'append' },
    );
  }

  /** An appended `assistant/message`; a string becomes one text block. */
  assistantMessage(turn: number, step: number, content: string | readonly unknown[]): SessionEvent {
    const seq = this.nextSeq;
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
    return this.event(
      'assistant/message',
      { turn, step, message: { id: `assistant-${seq}`, role: 'assistant', content: blocks, source: { ...MODEL_SOURCE } } },
      undefined,
      { surfaceOp: 'append' },
    );
  }

  /** `tool/call` `{turn, step, callId, name, arguments}` (the call was recorded as started). */
  toolCallRecorded(turn: number, step: number, callId: string, name = 'read_file', args = '{"path":"README.md"}'): SessionEvent {
    return this.event('tool/call', { turn, step, callId, name, arguments: args });
  }

  /** An appended `tool/result` with one tool-result block answering `callId`, citing `callSeq` when given. */
  toolResult(turn: number, step: number, callId: string, text: string, callSeq?: number): SessionEvent {
    const seq = this.nextSeq;
    const message = {
      id: `tool-${seq}`,
      role: 'user',
      content: [{ type: 'tool-result', toolCallId: callId, content: [{ type: 'text', text }], isError: false }],
      source: { kind: 'tool', callId },
    };
    return this.event('tool/result', { turn, step, message }, undefined, {
      ...(callSeq === undefined ? {} : { sourceEventSeqs: [callSeq] }),
      surfaceOp: 'append',
    });
  }

  /** An `assistant/chunk` text delta (packable); `time` may be given to shape the row's `dt`. */
  textDelta(turn: number, step: number, index: number, text: string, time?: number): SessionEvent {
    return this.event('assistant/chunk', { turn, step, chunk: { type: 'text-delta', index, text } }, time);
  }

  /** An `assistant/chunk` reasoning delta (packable). */
  reasoningDelta(turn: number, step: number, index: number, text: string, time?: number): SessionEvent {
    return this.event('assistant/chunk', { turn, step, chunk: { type: 'reasoning-delta', index, text } }, time);
  }

  /** An `assistant/chunk` tool-call delta (packable); `name` only when given. */
  toolCallDelta(turn: number, step: number, index: number, id: string, argumentsDelta: string, name?: string, time?: number): SessionEvent {
    const chunk =
      name === undefined
        ? { type: 'tool-call-delta', index, id, argumentsDelta }
        : { type: 'tool-call-delta', index, id, name, argumentsDelta };
    return this.event('assistant/chunk', { turn, step, chunk }, time);
  }

  /** A non-delta `assistant/chunk` (never packed). */
  blockStart(turn: number, step: number, index: number, blockType = 'text'): SessionEvent {
    return this.event('assistant/chunk', { turn, step, chunk: { type: 'block-start', index, blockType } });
  }

  /** `session/title` `{title, messageSeqs, source}`. */
  sessionTitle(title: string, messageSeqs: readonly number[], source: unknown = { kind: 'fallback' }): SessionEvent {
    return this.event('session/title', { title, messageSeqs: [...messageSeqs], source });
  }

  /**
   * One closed turn: `turn/start`, `step/start`, the user prompt, one text delta of block 0 per entry of
   * `deltas` (a run of 3 or more packs into a row), the assistant answer, `step/end`, `turn/end`.
   */
  closedTurn(turn: number, prompt: string, deltas: readonly string[]): SessionEvent[] {
    return [
      this.turnStart(turn),
      this.stepStart(turn, 1),
      this.userMessage(prompt),
      ...deltas.map((text) => this.textDelta(turn, 1, 0, text)),
      this.assistantMessage(turn, 1, deltas.join('')),
      this.stepEnd(turn, 1),
      this.turnEnd(turn),
    ];
  }
}

/** A session header; key order follows the in-memory header of SESSION-LOG.md §7.1. */
export function sessionHeader(id: string, cwd?: string, extra: Partial<Omit<SessionHeader, 'id' | 'version'>> = {}): SessionHeader {
  return {
    version: 0,
    id: asSessionId(id),
    createdAt: extra.createdAt ?? BASE_TIME - 1000,
    ...(cwd === undefined ? {} : { cwd }),
    ...extra,
  } as SessionHeader;
}

/** A fresh temporary directory under `os.tmpdir()`. */
export function makeTempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'sessionctx-store-'));
}

/** Removes a temporary directory made by {@link makeTempDir}. */
export async function removeTempDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
}

/** Writes `bytes` at `path`, creating its parent directories (hand-written artifacts). */
export async function writeArtifactFile(path: string, bytes: Uint8Array | string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, bytes);
}

/** Expected storage text of a batch written verbatim: one `JSON.stringify`d record per line, each with LF. */
export function linesOf(records: readonly unknown[]): string {
  return records.map((record) => `${JSON.stringify(record)}\n`).join('');
}

/** The JSON text of a value, for comparisons that must include key order. */
export function json(value: unknown): string {
  return JSON.stringify(value);
}

/** One Zstandard frame of a file, decoded with the `@bokuweb/zstd-wasm` package directly (not the store's reader). */
export interface DecodedFrame {
  readonly start: number;
  readonly end: number;
  /** The frame descriptor byte. */
  readonly descriptor: number;
  /** The last 4 bytes of the frame (the content checksum when the flag is set). */
  readonly trailer: Uint8Array;
  readonly plaintext: string;
}

/**
 * Splits a zstd artifact into its frames (structural scan) and decodes each one on its own with the
 * package's checksum-verifying decoder. Fails when the file ends in a torn frame.
 */
export async function decodeFrames(bytes: Uint8Array): Promise<DecodedFrame[]> {
  // The package's own init() must not run twice in one process (a second call re-instantiates the
  // module under the store's feet), so share the project's idempotent initialiser.
  await initZstd();
  const scan = scanZstdFrames(bytes);
  expect(scan.tornStart, 'the file ends in a torn frame').toBeUndefined();
  const text = new TextDecoder('utf-8', { fatal: true });
  return scan.frames.map((frame) => {
    const frameBytes = bytes.subarray(frame.start, frame.end);
    return {
      start: frame.start,
      end: frame.end,
      descriptor: frameBytes[4] as number,
      trailer: frameBytes.subarray(frameBytes.length - 4),
      plaintext: text.decode(zstdWasm.decompress(frameBytes)),
    };
  });
}

/** Expected error fields of {@link expectRejection}. */
export interface ExpectedError {
  readonly message: string;
  readonly name?: string;
  readonly code?: string;
  readonly type?: abstract new (...args: never[]) => Error;
}

/** Awaits `promise`, which must reject with exactly this message (and name / code / class when given). */
export async function expectRejection(promise: Promise<unknown>, expected: ExpectedError): Promise<Error & { code?: unknown }> {
  let settled: { ok: true } | { ok: false; error: unknown };
  try {
    await promise;
    settled = { ok: true };
  } catch (error) {
    settled = { ok: false, error };
  }
  expect(settled.ok, `expected a rejection with "${expected.message}"`).toBe(false);
  const error = (settled as { error: unknown }).error as Error & { code?: unknown };
  expect(error).toBeInstanceOf(Error);
  expect(error.message).toBe(expected.message);
  if (expected.name !== undefined) expect(error.name).toBe(expected.name);
  if (expected.code !== undefined) expect(error.code).toBe(expected.code);
  if (expected.type !== undefined) expect(error).toBeInstanceOf(expected.type);
  return error;
}

export { noiseText };
