/**
 * Shared helpers of the writer reliability tests: spawning `writer-child.js`, collecting its acknowledged batches,
 * and checking that a session holds every one of them with its own content.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import type { SessionEvent } from '../../src/protocol/events.js';
import { promptOf } from './child-events.js';

/** The child script, compiled beside this file. */
export const WRITER_CHILD = new URL('./writer-child.js', import.meta.url).pathname;

/** One acknowledged batch: seqs `first`…`last` written by the child tagged `tag`. */
export interface Ack {
  readonly first: number;
  readonly last: number;
  readonly tag: string;
}

/** A running child writer and what it printed so far. */
export interface ChildWriter {
  readonly process: ChildProcess;
  readonly acks: Ack[];
  /** `err <code>` lines' codes. */
  readonly errors: string[];
  ready: boolean;
  done: boolean;
  /** Resolves when the process exited (with its exit code or signal). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves at the first acknowledgement (or exit). */
  readonly firstAck: Promise<void>;
}

/** Starts a child writer (see `writer-child.ts` for the arguments). */
export function startWriter(
  root: string,
  compression: 'none' | 'zstd',
  id: string,
  mode: 'create' | 'resume' | 'percall',
  tag: string,
  promptBytes: number,
  maxBatches: number,
): ChildWriter {
  const child = spawn(process.execPath, [WRITER_CHILD, root, compression, id, mode, tag, String(promptBytes), String(maxBatches)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const acks: Ack[] = [];
  const errors: string[] = [];
  let pending = '';
  let resolveFirst: () => void = () => undefined;
  const firstAck = new Promise<void>((resolve) => {
    resolveFirst = resolve;
  });
  const state: ChildWriter = {
    process: child,
    acks,
    errors,
    ready: false,
    done: false,
    exited: new Promise((resolve) =>
      child.on('exit', (code, signal) => {
        resolveFirst();
        resolve({ code, signal });
      }),
    ),
    firstAck,
  };
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.length > 10_000) stderr = stderr.slice(-10_000);
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      const [kind, a, b, c] = line.split(' ');
      if (kind === 'ack') {
        acks.push({ first: Number(a), last: Number(b), tag: c ?? '' });
        resolveFirst();
      } else if (kind === 'err') errors.push(a ?? '');
      else if (kind === 'ready') state.ready = true;
      else if (kind === 'done') state.done = true;
    }
  });
  return state;
}

/** The prompt the child writes for the turn starting at `seq` (the fixture rule of `child-events.ts`). */
export function expectedPrompt(tag: string, seq: number, promptBytes: number): string {
  return promptOf(tag, seq, promptBytes);
}

/** The text of a `user/message` event. */
function userText(event: SessionEvent | undefined): string | undefined {
  const data = event?.data as { content?: Array<{ text?: string }> } | undefined;
  return data?.content?.[0]?.text;
}

/**
 * Asserts that `events` hold every acknowledged batch: its seqs exist and its user message (the third event of
 * a closed turn) is the child's prompt for it. The first batch of a `create` child has a 16-byte prompt.
 * Returns how many batches were checked (every one, or the assertion fails).
 */
export function expectAllAcknowledged(events: readonly SessionEvent[], acks: readonly Ack[], promptBytes: (ack: Ack) => number): number {
  for (const ack of acks) {
    expect(events.length, `batch ${ack.first}-${ack.last} of ${ack.tag} present`).toBeGreaterThan(ack.last);
    expect(events[ack.first]?.type).toBe('turn/start');
    expect(userText(events[ack.first + 2]), `content of batch ${ack.first} of ${ack.tag}`).toBe(
      expectedPrompt(ack.tag, ack.first, promptBytes(ack)),
    );
  }
  return acks.length;
}
