/**
 * What the fleet search tests share: roots of dsh-written fixture logs copied under new ids (`session-<uuid v4>`, as
 * dsh names sessions), each copy optionally cut to a prefix of its lines so that appending the rest is an append of
 * dsh's own events; a publisher source that publishes search documents; and each host's local SQLite search (the
 * oracle), paged through to the end.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import type { PublishSource } from '../../../../src/main/engine/fleet/corpus-publisher.js';
import { scanSearchDocuments } from '../../../../src/main/engine/fleet/search-document-scan.js';
import type { SearchQuery, SearchSessionResult } from '../../../../src/protocol/search-types.js';
import { RAW_ROOT, fixtureSessions } from '../../../support/fixtures.js';

/** A v4-shaped UUID from a seeded generator. */
export function seededUuid(next: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16));
  hex[12] = '4';
  hex[16] = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** One copy of a fixture log in a root: its id, file, and the lines of the source it holds and has yet to get. */
export interface SessionCopy {
  readonly id: string;
  readonly path: string;
  /** The copy's full log lines (the source's, under the new id). */
  readonly lines: readonly string[];
  /** Lines written so far (the header included). */
  written: number;
}

/**
 * Copies fixture session `index` into `root` (raw) under `id`, keeping its first `lines` lines (all by default).
 * @returns the copy, whose remaining lines {@link appendLines} writes.
 */
export function copySession(root: string, index: number, id: string, lines?: number): SessionCopy {
  const session = fixtureSessions()[index];
  if (session === undefined) throw new Error(`no fixture session ${index}`);
  const log = readFileSync(join(RAW_ROOT, session.projectDir, session.id, 'session.jsonl'), 'utf8');
  const all = log
    .split(session.id)
    .join(id)
    .split('\n')
    .filter((line) => line !== '');
  const path = join(root, session.projectDir, id, 'session.jsonl');
  mkdirSync(join(root, session.projectDir, id), { recursive: true });
  const written = Math.max(1, Math.min(lines ?? all.length, all.length));
  writeFileSync(path, `${all.slice(0, written).join('\n')}\n`);
  return { id, path, lines: all, written };
}

/** Appends up to `count` more of the copy's source lines (dsh's own next events). */
export function appendLines(copy: SessionCopy, count: number): void {
  const next = copy.lines.slice(copy.written, copy.written + count);
  if (next.length === 0) return;
  appendFileSync(copy.path, `${next.join('\n')}\n`);
  copy.written += next.length;
}

/** The events (seq → event data) of what a copy holds now, read from its own file. */
export function eventsOf(copy: SessionCopy): Map<number, unknown> {
  const events = new Map<number, unknown>();
  for (const line of readFileSync(copy.path, 'utf8').split('\n').slice(1)) {
    if (line === '') continue;
    const event = JSON.parse(line) as { seq?: unknown; data?: unknown };
    if (typeof event.seq === 'number') events.set(event.seq, event.data);
  }
  return events;
}

/** Every `text` field inside `value` (the text blocks of messages, summaries and results), in document order. */
export function textsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) textsOf(item, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'text' && typeof item === 'string') out.push(item);
      else textsOf(item, out);
    }
  }
  return out;
}

/**
 * The tool text of an event's data as docs/SEARCH.md §3 defines it: each tool call's name and JSON arguments, and
 * tool results' text blocks, one per line.
 */
export function toolTextOf(data: unknown): string {
  const message = (data as { message?: { content?: unknown } } | undefined)?.message;
  const content = Array.isArray(message?.content) ? (message.content as Array<Record<string, unknown>>) : [];
  const parts: string[] = [];
  for (const block of content) {
    if (block['type'] === 'tool-call' && typeof block['name'] === 'string')
      parts.push(`${block['name']} ${JSON.stringify(block['arguments'] ?? null)}`);
    else if (block['type'] === 'tool-result') {
      const text = textsOf(block['content']).join('\n');
      if (text !== '') parts.push(text);
    }
  }
  return parts.join('\n');
}

/** An engine over `root` (raw) as a host reads it, publishing search documents with its own document scan. */
export async function hostEngine(root: string, searchDirectory: string, includeTools = false): Promise<LocalSessionEngine> {
  return createEngine({
    root,
    compression: 'none',
    workers: false,
    corpus: { watch: false },
    sourceCache: false,
    search: { directory: searchDirectory, includeTools },
  });
}

/** The publisher's source over a host engine, with search documents (tool text as `includeTools` says). */
export function searchSource(engine: LocalSessionEngine, root: string, includeTools = false): PublishSource {
  return {
    listSessions: (signal) => engine.listSessions(signal),
    readTitleSnapshots: (ids, signal) => engine.readTitleSnapshots(ids, signal),
    search: {
      includeTools,
      scan: (request, signal) => scanSearchDocuments(engine.runner, { root, compression: 'none' }, request, includeTools, signal),
    },
  };
}

/** Every result of a search, paged through with `limit` per page. */
export async function everyResult(
  search: (query: SearchQuery) => Promise<{ results: readonly SearchSessionResult[]; nextCursor?: string }>,
  query: SearchQuery,
  limit = 100,
): Promise<SearchSessionResult[]> {
  const results: SearchSessionResult[] = [];
  let cursor: string | undefined;
  do {
    const page = await search({ ...query, limit, ...(cursor === undefined ? {} : { cursor }) });
    results.push(...page.results);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return results;
}
