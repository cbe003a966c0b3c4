/**
 * dsh-shaped sessions for the warm-cache benchmarks and the source cache's tests (issue 15): turns with a user
 * prompt, streamed assistant chunks, an assistant message with reasoning, text and tool calls, the tool calls and
 * their results, a title, and one native compaction (compaction/start, /summary, the checkpoint user message that
 * replaces every current node, /end). Also the artifact bytes in dsh's framing — raw lines, or one Zstandard frame
 * per batch — so callers can write, append to, truncate and replace artifacts byte by byte.
 */
import { join } from 'node:path';
import { asSessionId } from '../../src/protocol/events.js';
import type { SessionEvent, SessionHeader } from '../../src/protocol/events.js';
import { serializeHeaderLine } from '../../src/protocol/header-line.js';
import { artifactFileName, encodeSegment, projectDirName, type Compression } from '../../src/protocol/storage-paths.js';
import { compressFrame } from '../../src/workers/decode/zstd-codec.js';
import { appendNativeCompaction, syntheticText, syntheticToolResult } from './synthetic-session.js';

/** Shape of a generated session. */
export interface LongSessionOptions {
  readonly id: string;
  readonly cwd?: string;
  /** Seeds the texts (two sessions with other seeds differ in every text). */
  readonly seed?: number;
  /** Generate turns until the log has at least this many events (it ends at a turn boundary). */
  readonly minEvents: number;
  /** Approximate bytes of each prompt, answer and tool result. */
  readonly textBytes: number;
  readonly toolCallsPerTurn: number;
  readonly chunksPerAnswer: number;
  /** After this turn, one native compaction replaces every current node (0: none). */
  readonly compactAfterTurn: number;
}

/** A generated session, plus a continuation generator for appends. */
export interface LongSession {
  readonly header: SessionHeader;
  readonly events: SessionEvent[];
  /** Appends whole turns until at least `count` more events exist; returns the new events. */
  more(count: number): SessionEvent[];
}

/** Builds a dsh-shaped session (deterministic for its options). */
export function longSession(options: LongSessionOptions): LongSession {
  const seed = options.seed ?? 1;
  const createdAt = 1_767_225_600_000;
  const header: SessionHeader = {
    version: 0,
    id: asSessionId(options.id),
    createdAt,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    delegationDepth: 0,
  };
  const events: SessionEvent[] = [];
  const surface: number[] = [];
  let time = createdAt;
  let turn = 0;
  const push = (type: string, data: unknown, extra: Partial<Pick<SessionEvent, 'surfaceOp' | 'sourceEventSeqs'>> = {}): SessionEvent => {
    time += 7;
    const event = { type, seq: events.length, time, data, ...extra } as SessionEvent;
    events.push(event);
    return event;
  };
  const node = (type: string, data: unknown, sourceEventSeqs?: number[]): SessionEvent => {
    const event = push(type, data, { surfaceOp: 'append', ...(sourceEventSeqs === undefined ? {} : { sourceEventSeqs }) });
    surface.push(event.seq);
    return event;
  };
  const source = { kind: 'model', provider: 'oracle', model: 'oracle-chat-128k' };
  const oneTurn = (): void => {
    turn += 1;
    push('turn/start', { turn });
    const user = node('user/message', {
      content: [{ type: 'text', text: syntheticText(seed * 7919 + turn * 31, options.textBytes) }],
      source: { kind: 'user' },
      role: 'user',
      id: `u-${turn}`,
    });
    if (turn === 1) push('session/title', { title: `Session ${options.id}`, messageSeqs: [user.seq], source: { kind: 'fallback' } });
    push('step/start', { turn, step: 1 });
    const answer = syntheticText(seed * 104729 + turn * 17 + 3, options.textBytes);
    const piece = Math.max(1, Math.ceil(answer.length / Math.max(1, options.chunksPerAnswer)));
    for (let offset = 0, index = 0; offset < answer.length && index < options.chunksPerAnswer; offset += piece, index += 1) {
      push('assistant/chunk', { turn, step: 1, chunk: { type: 'text-delta', index: 0, text: answer.slice(offset, offset + piece) } });
    }
    const calls = Array.from({ length: options.toolCallsPerTurn }, (_, index) => ({
      type: 'tool-call',
      id: `call-${turn}-${index}`,
      name: 'read_file',
      arguments: JSON.stringify({ path: `src/file-${index}.ts` }),
    }));
    node('assistant/message', {
      turn,
      step: 1,
      message: {
        role: 'assistant',
        content: [{ type: 'reasoning', text: `thinking about turn ${turn}` }, { type: 'text', text: answer }, ...calls],
        source,
        id: `a-${turn}`,
      },
    });
    for (const call of calls) {
      const callEvent = push('tool/call', { turn, step: 1, callId: call.id, name: call.name, arguments: call.arguments });
      node('tool/result', syntheticToolResult(turn, call.id, syntheticText(seed + callEvent.seq, options.textBytes)), [callEvent.seq]);
    }
    push('step/end', { turn, step: 1 });
    push('turn/end', { turn, reason: { kind: 'completed' } });
    if (turn === options.compactAfterTurn) compact();
  };
  const compact = (): void =>
    appendNativeCompaction(push, surface, {
      id: `native-${turn}`,
      summaryText: `Native summary after turn ${turn}: ${syntheticText(seed * 31 + turn, 300)}`,
      provider: 'bench',
      model: 'bench-1',
    });
  while (events.length < options.minEvents) oneTurn();
  return {
    header,
    events,
    more(count) {
      const from = events.length;
      while (events.length < from + count) oneTurn();
      return events.slice(from);
    },
  };
}

const encoder = new TextEncoder();

/** The artifact path of `header` under `root` (SESSION-LOG.md §9.3–§9.4). */
export function artifactPathOf(root: string, header: SessionHeader, compression: Compression): string {
  return join(root, projectDirName(header.cwd), encodeSegment(header.id), artifactFileName(compression));
}

/** The bytes of `events` as appended in batches of `batch` (raw: lines; zstd: one frame per batch). Zstd needs `initZstd()`. */
export function eventBytes(events: readonly SessionEvent[], compression: Compression, batch = 64): Uint8Array {
  const parts: Uint8Array[] = [];
  for (let from = 0; from < events.length; from += batch) {
    const text = events
      .slice(from, from + batch)
      .map((event) => `${JSON.stringify(event)}\n`)
      .join('');
    const plain = encoder.encode(text);
    parts.push(compression === 'zstd' ? compressFrame(plain) : plain);
  }
  return Buffer.concat(parts);
}

/** The bytes of a whole artifact: the header record (frame 0 in zstd) and the events. Zstd needs `initZstd()`. */
export function artifactBytes(header: SessionHeader, events: readonly SessionEvent[], compression: Compression, batch = 64): Uint8Array {
  const headerPlain = encoder.encode(`${serializeHeaderLine(header)}\n`);
  return Buffer.concat([compression === 'zstd' ? compressFrame(headerPlain) : headerPlain, eventBytes(events, compression, batch)]);
}
