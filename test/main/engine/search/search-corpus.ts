// Test corpora for search (issue 17): dsh-shaped sessions whose texts come from a small vocabulary with accents and
// case variants, with native compactions, and the oracle's own model of each session's current surface (what the
// index must hold), kept by the builder as it writes events — independent of the engine's fold.
import { mkdir, writeFile, appendFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { asSessionId, type SessionEvent, type SessionHeader } from '../../../../src/protocol/events.js';
import type { Compression } from '../../../../src/protocol/storage-paths.js';
import { artifactBytes, artifactPathOf, eventBytes } from '../../../../bench/support/long-session.js';

/** One document as the oracle sees it. */
export interface OracleDoc {
  readonly seq: number;
  readonly role: 'user' | 'assistant' | 'checkpoint';
  readonly text: string;
}

/** A session being written, with its oracle surface. */
export class CorpusSession {
  readonly header: SessionHeader;
  readonly events: SessionEvent[] = [];
  /** Current surface nodes (seq) in order, and the documents of those that carry text. */
  surface: number[] = [];
  readonly docs = new Map<number, OracleDoc>();
  #turn = 0;
  #time: number;

  constructor(id: string, cwd: string, createdAt = 1_767_225_600_000) {
    this.header = { version: 0, id: asSessionId(id), createdAt, cwd, delegationDepth: 0 };
    this.#time = createdAt;
  }

  #push(type: string, data: unknown, extra: Partial<Pick<SessionEvent, 'surfaceOp' | 'sourceEventSeqs'>> = {}): SessionEvent {
    this.#time += 1000;
    const event = { type, seq: this.events.length, time: this.#time, data, ...extra } as SessionEvent;
    this.events.push(event);
    return event;
  }

  /** One turn: a user prompt and an assistant answer (with reasoning that must never be indexed). */
  turn(prompt: string, answer: string, reasoning = 'secretreasoning'): SessionEvent[] {
    const from = this.events.length;
    this.#turn += 1;
    const turn = this.#turn;
    this.#push('turn/start', { turn });
    const user = this.#push(
      'user/message',
      { content: [{ type: 'text', text: prompt }], source: { kind: 'user' }, role: 'user', id: `u-${this.header.id}-${turn}` },
      { surfaceOp: 'append' },
    );
    this.surface.push(user.seq);
    this.docs.set(user.seq, { seq: user.seq, role: 'user', text: prompt });
    this.#push('step/start', { turn, step: 1 });
    const assistant = this.#push(
      'assistant/message',
      {
        turn,
        step: 1,
        message: {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: reasoning },
            { type: 'text', text: answer },
          ],
          source: { kind: 'model', provider: 'oracle', model: 'oracle-1' },
          id: `a-${this.header.id}-${turn}`,
        },
      },
      { surfaceOp: 'append' },
    );
    this.surface.push(assistant.seq);
    this.docs.set(assistant.seq, { seq: assistant.seq, role: 'assistant', text: answer });
    this.#push('step/end', { turn, step: 1 });
    this.#push('turn/end', { turn, reason: { kind: 'completed' } });
    return this.events.slice(from);
  }

  /** A native compaction: a checkpoint replaces every current node (their text leaves the surface). */
  compact(summary: string): SessionEvent[] {
    const from = this.events.length;
    const shadowed = [...this.surface];
    if (shadowed.length === 0) return [];
    const compactionId = `c-${this.header.id}-${this.events.length}`;
    const first = shadowed[0] as number;
    const last = shadowed[shadowed.length - 1] as number;
    const start = this.#push('compaction/start', { compactionId, turn: null });
    const summaryEvent = this.#push('compaction/summary', {
      compactionId,
      summary: [{ type: 'text', text: summary }],
      shadowedRange: { start: first, end: last },
      shadowedSeqs: shadowed,
      shadowedTokenCount: shadowed.length * 10,
      provider: 'oracle',
      model: 'oracle-1',
    });
    const checkpoint = this.#push(
      'user/message',
      {
        source: { kind: 'plugin', plugin: 'compact', compactionId },
        content: [{ type: 'text', text: summary }],
        role: 'user',
        id: compactionId,
      },
      { surfaceOp: { op: 'replace', start: first, end: last }, sourceEventSeqs: [start.seq, summaryEvent.seq, ...shadowed] },
    );
    this.#push('compaction/end', { compactionId, turn: null });
    for (const seq of shadowed) this.docs.delete(seq);
    this.surface = [checkpoint.seq];
    this.docs.set(checkpoint.seq, { seq: checkpoint.seq, role: 'checkpoint', text: summary });
    return this.events.slice(from);
  }

  /** The oracle's current documents. */
  currentDocs(): OracleDoc[] {
    return this.surface.flatMap((seq) => {
      const doc = this.docs.get(seq);
      return doc === undefined ? [] : [doc];
    });
  }
}

/** Writes a whole artifact (replacing any file there). Zstd needs `initZstd()`. */
export async function writeSession(root: string, session: CorpusSession, compression: Compression): Promise<string> {
  const path = artifactPathOf(root, session.header, compression);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, artifactBytes(session.header, session.events, compression, 8));
  return path;
}

/** Appends events to an artifact (raw lines or new zstd frames). */
export async function appendEvents(
  root: string,
  session: CorpusSession,
  events: readonly SessionEvent[],
  compression: Compression,
): Promise<void> {
  if (events.length === 0) return;
  await appendFile(artifactPathOf(root, session.header, compression), eventBytes(events, compression, 8));
}

/** The independent normaliser of the oracle: NFD, combining marks stripped, lower case. */
export function normalise(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** Tokens as unicode61 cuts them: runs of letters, digits and private-use characters. */
export function tokens(text: string): string[] {
  return normalise(text).match(/[\p{L}\p{N}\p{Co}]+/gu) ?? [];
}

/** True when the tokens of `phrase` occur consecutively in `text` (an empty phrase matches nothing). */
export function containsPhrase(text: string, phrase: string): boolean {
  const wanted = tokens(phrase);
  if (wanted.length === 0) return false;
  const have = tokens(text);
  outer: for (let at = 0; at + wanted.length <= have.length; at += 1) {
    for (let index = 0; index < wanted.length; index += 1) if (have[at + index] !== wanted[index]) continue outer;
    return true;
  }
  return false;
}
