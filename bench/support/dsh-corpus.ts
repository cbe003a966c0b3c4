/**
 * A deterministic dsh-shaped corpus of any size (issue 27 item 3), written straight to disk in dsh's layout and
 * framing (SESSION-LOG.md §9.2–§9.9) instead of through the store, so 100,000 sessions take minutes, not hours.
 *
 * Shape, by session index (every choice a pure function of the index and the seed):
 * - most sessions are small (1–3 turns of short text); every `longEvery`-th is long (tens of turns, streamed chunk
 *   runs that the writer packs into chunk rows, tool calls and their results, and one native compaction);
 * - many projects: the cwd is one of `projects` working directories (some with characters `projectKey` escapes, some
 *   nested), and every `noCwdEvery`-th session has no cwd (the `_no-cwd` project);
 * - titles: a fallback title on the first turn, often a model (provider) title after it, sometimes a user rename
 *   later; a few sessions have no title at all;
 * - `createdAt` grows with the index, with an occasional tie (the listing's id tie-break is exercised).
 *
 * The artifacts are what dsh's writer produces: the header line alone (frame 0 in zstd), then one batch per durable
 * append (raw LF-terminated lines, or one checksummed zstd frame each), stream deltas packed into chunk rows.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { asSessionId } from '../../src/protocol/events.js';
import type { SessionEvent, SessionHeader } from '../../src/protocol/events.js';
import { serializeHeaderLine } from '../../src/protocol/header-line.js';
import { encodeStorageBatch } from '../../src/protocol/storage-rows.js';
import type { Compression } from '../../src/protocol/storage-paths.js';
import { compressFrame, initZstd } from '../../src/workers/decode/zstd-codec.js';
import { artifactPathOf } from './long-session.js';
import { appendNativeCompaction, syntheticText, syntheticToolResult } from './synthetic-session.js';

/** The shape of a generated corpus. */
export interface DshCorpusOptions {
  /** Number of sessions. */
  readonly sessions: number;
  /** Distinct working directories (default 400). */
  readonly projects?: number;
  /** Every n-th session is long (default 50; 0: none). */
  readonly longEvery?: number;
  /** Every n-th session has no cwd (default 13; 0: none). */
  readonly noCwdEvery?: number;
  /** Varies every text and title (default 1). */
  readonly seed?: number;
}

/** What kind of title history a generated session has. */
export type GeneratedTitleKind = 'none' | 'fallback' | 'model' | 'rename';

/** One generated session, with what the generator decided about it (for tests and benchmark queries). */
export interface GeneratedSession {
  readonly header: SessionHeader;
  readonly events: SessionEvent[];
  /** The title the log's title fold ends on (`undefined`: the log has none). */
  readonly title: string | undefined;
  readonly titleKind: GeneratedTitleKind;
  readonly long: boolean;
  /** Native compactions in the log. */
  readonly compactions: number;
}

const TOPICS = ['checkout', 'migration', 'training', 'deploy', 'cache', 'auth', 'billing', 'search', 'upload', 'metrics'];
const VERBS = ['Fix', 'Add', 'Refactor', 'Debug', 'Document', 'Speed up', 'Review'];
const BASE_TIME = 1_767_225_600_000;
const MODEL_SOURCE = { kind: 'model', provider: 'oracle', model: 'oracle-chat-128k' } as const;

/** A small deterministic mix of the index and the seed (xorshift-multiply), for choices that must not line up. */
function mix(index: number, seed: number, salt: number): number {
  let x = (index * 0x9e3779b1 + seed * 0x85ebca6b + salt * 0xc2b2ae35) >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d) >>> 0;
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b) >>> 0;
  x ^= x >>> 16;
  return x >>> 0;
}

/** The cwd of the `project`-th working directory: plain, nested, and some with characters `projectKey` escapes. */
export function generatedCwd(project: number): string {
  switch (project % 8) {
    case 5:
      return `/home/dev/My Projects/app ${project}`;
    case 6:
      return `/srv/work/team-${project % 17}/service-${project}/packages/core`;
    case 7:
      return `/mnt/c:/Users/dev/repo-${project}`;
    default:
      return `/work/project-${project}`;
  }
}

/** The header and events of the `index`-th session (deterministic for `index` and the options). */
export function dshCorpusSession(index: number, options: DshCorpusOptions): GeneratedSession {
  const seed = options.seed ?? 1;
  const projects = options.projects ?? 400;
  const longEvery = options.longEvery ?? 50;
  const noCwdEvery = options.noCwdEvery ?? 13;
  const long = longEvery > 0 && index % longEvery === longEvery - 1;
  const noCwd = noCwdEvery > 0 && index % noCwdEvery === noCwdEvery - 1;
  const id = `session-${String(index).padStart(7, '0')}-${(mix(index, seed, 1) % 0xfffff).toString(16).padStart(5, '0')}`;
  // Every 97th session shares its predecessor's creation time (the listing orders ties by id).
  const createdAt = BASE_TIME + (index % 97 === 96 ? index - 1 : index) * 30_000;
  const header: SessionHeader = {
    version: 0,
    id: asSessionId(id),
    createdAt,
    ...(noCwd ? {} : { cwd: generatedCwd(mix(index, seed, 2) % projects) }),
    delegationDepth: 0,
  };
  const titleRoll = mix(index, seed, 3) % 20;
  const titleKind: GeneratedTitleKind = titleRoll === 0 ? 'none' : titleRoll < 8 ? 'fallback' : titleRoll < 17 ? 'model' : 'rename';
  const topic = TOPICS[mix(index, seed, 4) % TOPICS.length] as string;
  const verb = VERBS[mix(index, seed, 5) % VERBS.length] as string;
  const turns = long ? 24 + (mix(index, seed, 6) % 24) : 1 + (mix(index, seed, 6) % 3);
  const textBytes = long ? 900 : 160;
  const compactAfter = long ? Math.floor(turns / 2) : 0;

  const events: SessionEvent[] = [];
  const surface: number[] = [];
  let time = createdAt;
  let title: string | undefined;
  let compactions = 0;
  const push = (type: string, data: unknown, extra: Partial<Pick<SessionEvent, 'surfaceOp' | 'sourceEventSeqs'>> = {}): SessionEvent => {
    time += 5;
    const event = { type, seq: events.length, time, data, ...extra } as SessionEvent;
    events.push(event);
    return event;
  };
  const node = (type: string, data: unknown, sourceEventSeqs?: number[]): SessionEvent => {
    const event = push(type, data, { surfaceOp: 'append', ...(sourceEventSeqs === undefined ? {} : { sourceEventSeqs }) });
    surface.push(event.seq);
    return event;
  };
  const textSeed = mix(index, seed, 7);
  for (let turn = 1; turn <= turns; turn += 1) {
    push('turn/start', { turn });
    const user = node('user/message', {
      content: [{ type: 'text', text: `${verb.toLowerCase()} the ${topic} ${syntheticText(textSeed + turn * 31, textBytes)}` }],
      source: { kind: 'user' },
      role: 'user',
      id: `u-${turn}`,
    });
    if (turn === 1 && titleKind !== 'none') {
      title = `${verb} ${topic} issue ${index}`;
      push('session/title', { title, messageSeqs: [user.seq], source: { kind: 'fallback' } });
    }
    push('step/start', { turn, step: 1 });
    const answer = syntheticText(textSeed + turn * 17 + 3, textBytes);
    const calls = long ? 1 + (turn % 2) : 0;
    if (long) {
      // Streamed deltas: runs of 3 or more pack into one chunk row (§9.7).
      const pieces = 6;
      const piece = Math.ceil(answer.length / pieces);
      for (let at = 0; at < pieces; at += 1)
        push('assistant/chunk', {
          turn,
          step: 1,
          chunk: { type: 'text-delta', index: 0, text: answer.slice(at * piece, (at + 1) * piece) },
        });
    }
    const toolCalls = Array.from({ length: calls }, (_, at) => ({
      type: 'tool-call',
      id: `call-${turn}-${at}`,
      name: 'read_file',
      arguments: JSON.stringify({ path: `src/${topic}/file-${at}.ts` }),
    }));
    node('assistant/message', {
      turn,
      step: 1,
      message: {
        role: 'assistant',
        content: [{ type: 'reasoning', text: `thinking about ${topic}, turn ${turn}` }, { type: 'text', text: answer }, ...toolCalls],
        source: MODEL_SOURCE,
        id: `a-${turn}`,
      },
    });
    for (const call of toolCalls) {
      const callEvent = push('tool/call', { turn, step: 1, callId: call.id, name: call.name, arguments: call.arguments });
      node('tool/result', syntheticToolResult(turn, call.id, syntheticText(textSeed + callEvent.seq, textBytes)), [callEvent.seq]);
    }
    push('step/end', { turn, step: 1 });
    if (turn === 1 && (titleKind === 'model' || titleKind === 'rename')) {
      title = `${verb} the ${topic} flow (${index})`;
      push('session/title', {
        title,
        messageSeqs: [user.seq],
        source: { kind: 'provider', provider: 'oracle', model: { provider: 'oracle', model: 'oracle-chat-128k' } },
      });
    }
    push('turn/end', { turn, reason: { kind: 'completed' } });
    if (turn === compactAfter && surface.length > 0) {
      compactions += 1;
      appendNativeCompaction(push, surface, {
        id: `native-${turn}`,
        summaryText: `Native summary after turn ${turn}: ${syntheticText(textSeed * 3 + turn, 240)}`,
        provider: 'oracle',
        model: 'oracle-chat-128k',
      });
    }
  }
  if (titleKind === 'rename') {
    // A user rename outside any turn, as dsh's `/title` writes it.
    title = `${topic} notes ${index} (renamed)`;
    push('session/title', { title, messageSeqs: [], source: { kind: 'user' } });
  }
  return { header, events, title, titleKind, long, compactions };
}

const encoder = new TextEncoder();

/**
 * The artifact bytes of one session as dsh's writer leaves them: the header line (frame 0 in zstd), then one batch
 * per turn (a durable append each), chunk runs packed. Zstd needs `initZstd()` first.
 */
export function dshArtifactBytes(session: GeneratedSession, compression: Compression): Uint8Array {
  const parts: Uint8Array[] = [];
  const frame = (text: string): void => {
    const plain = encoder.encode(text);
    parts.push(compression === 'zstd' ? compressFrame(plain) : plain);
  };
  frame(`${serializeHeaderLine(session.header)}\n`);
  let from = 0;
  session.events.forEach((event, at) => {
    // A batch ends with each turn (and with the log); a rename or compaction after a turn is its own batch.
    const last = at === session.events.length - 1;
    if (last || event.type === 'turn/end' || event.type === 'compaction/end') {
      frame(encodeStorageBatch(session.events.slice(from, at + 1), true));
      from = at + 1;
    }
  });
  return Buffer.concat(parts);
}

/** What {@link writeDshCorpus} wrote. */
export interface WrittenCorpus {
  readonly sessions: number;
  readonly bytes: number;
  readonly long: number;
  readonly noCwd: number;
  readonly compactions: number;
  readonly titled: number;
  readonly projectDirs: number;
}

/**
 * Writes the corpus under `root` (created), `concurrency` sessions at a time; `onProgress(done)` after each batch.
 * Nothing but session directories and artifacts is written (the root holds no other file).
 */
export async function writeDshCorpus(
  root: string,
  options: DshCorpusOptions,
  compression: Compression,
  onProgress?: (done: number) => void,
  concurrency = 32,
): Promise<WrittenCorpus> {
  if (compression === 'zstd') await initZstd();
  await mkdir(root, { recursive: true, mode: 0o700 });
  let bytes = 0;
  let long = 0;
  let noCwd = 0;
  let compactions = 0;
  let titled = 0;
  const projectDirs = new Set<string>();
  for (let start = 0; start < options.sessions; start += concurrency) {
    const end = Math.min(options.sessions, start + concurrency);
    const writes: Promise<void>[] = [];
    for (let index = start; index < end; index += 1) {
      const session = dshCorpusSession(index, options);
      const path = artifactPathOf(root, session.header, compression);
      const data = dshArtifactBytes(session, compression);
      bytes += data.length;
      if (session.long) long += 1;
      if (session.header.cwd === undefined) noCwd += 1;
      if (session.title !== undefined) titled += 1;
      compactions += session.compactions;
      projectDirs.add(dirname(dirname(path)));
      writes.push(mkdir(dirname(path), { recursive: true, mode: 0o700 }).then(() => writeFile(path, data, { mode: 0o600 })));
    }
    await Promise.all(writes);
    onProgress?.(end);
  }
  return { sessions: options.sessions, bytes, long, noCwd, compactions, titled, projectDirs: projectDirs.size };
}
