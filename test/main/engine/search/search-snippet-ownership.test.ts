// Issue 27 item 4: every hit's snippet comes from its own session. The root holds copies of two dsh-written logs of
// test/fixtures/ under new ids (named as dsh names sessions: `session-<uuid v4>`), so the same texts recur across
// sessions and phrases match in both logs; each hit's snippet must be an excerpt of the document its own session
// shows at the hit's seq — taken from dsh's own surface of the log it was copied from (expected/surfaces.json), not
// from the index. The defect: the snippet statement bound the document id as a JavaScript number, which
// better-sqlite3 binds as REAL; FTS5 ignores a non-integer rowid bound beside a MATCH, so every hit got the text of
// the first matching document of the whole table.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import type { SearchSessionResult } from '../../../../src/protocol/search-types.js';
import { RAW_ROOT, readExpected } from '../../../support/fixtures.js';
import { mulberry32 } from '../../../support/seeded-random.js';

/** The two fixture logs copied (project directory, session id). */
const SOURCES = [
  { project: '--home-dev-projects-ml-pipeline--', id: 'session-f8151068-dc58-4d60-b7e2-f553f8b6d366' },
  { project: '--srv-infra-terraform--', id: 'session-0cc527e0-336b-45ac-803e-e8580986bd80' },
] as const;
const COPIES = 40;
/** Phrases found in both logs, in one, and in nearly every document. */
const QUERIES = ['normalizes the totals', 'feature_store', 'the'];

interface SurfaceEntry {
  readonly session: { readonly id: string };
  readonly events: ReadonlyArray<{ readonly seq: number; readonly type: string; readonly data: Record<string, unknown> }>;
}

/** A v4-shaped UUID from a seeded generator (dsh names a session `session-` + `crypto.randomUUID()`). */
function seededUuid(next: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16));
  hex[12] = '4';
  hex[16] = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The text blocks of a surface event's message joined with LF (what the model sees of it). */
function textOf(event: SurfaceEntry['events'][number]): string {
  const message = (event.type === 'assistant/message' ? event.data['message'] : event.data) as { content?: unknown } | undefined;
  const content = Array.isArray(message?.content) ? (message.content as Array<{ type?: unknown; text?: unknown }>) : [];
  return content
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('\n');
}

/** Lower-case letter and digit runs joined with one space (unicode61's tokens, for these ASCII texts). */
function tokens(text: string): string {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).join(' ');
}

/** Line breaks and tabs as a snippet shows them. */
function shown(text: string): string {
  return text.replace(/[\n\r\t]/g, ' ');
}

let dir: string;
let root: string;
/** The source (index into SOURCES) of every copy. */
const sourceOf = new Map<string, number>();
/** Per source: seq → the document text dsh's surface shows. */
const documents: Array<Map<number, string>> = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-search-ownership-'));
  root = join(dir, 'root');
  const surfaces = readExpected<SurfaceEntry[]>('surfaces.json');
  for (const source of SOURCES) {
    const surface = surfaces.find((entry) => entry.session.id === source.id);
    if (surface === undefined) throw new Error(`no expected surface for ${source.id}`);
    documents.push(new Map(surface.events.map((event) => [event.seq, textOf(event)])));
  }
  const next = mulberry32(27);
  for (let copy = 0; copy < COPIES; copy += 1) {
    const which = copy % SOURCES.length;
    const source = SOURCES[which] as (typeof SOURCES)[number];
    const id = `session-${seededUuid(next)}`;
    const log = readFileSync(join(RAW_ROOT, source.project, source.id, 'session.jsonl'), 'utf8');
    mkdirSync(join(root, source.project, id), { recursive: true });
    writeFileSync(join(root, source.project, id, 'session.jsonl'), log.split(source.id).join(id));
    sourceOf.set(id, which);
  }
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

async function everyResult(engine: LocalSessionEngine, query: string): Promise<SearchSessionResult[]> {
  const results: SearchSessionResult[] = [];
  let cursor: string | undefined;
  do {
    const page = await engine.searchSessions({ query, limit: 25, ...(cursor === undefined ? {} : { cursor }) });
    results.push(...page.results);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return results;
}

describe('snippets of copies of two dsh logs under new ids', () => {
  it('shows every hit an excerpt of its own session at its seq, highlighting the phrase (fresh cache and index)', async () => {
    const engine = await createEngine({
      root,
      compression: 'none',
      corpus: { watch: false },
      store: { cacheDirectory: join(dir, 'cache') },
      search: { directory: join(dir, 'search') },
    });
    try {
      let checked = 0;
      for (const query of QUERIES) {
        const results = await everyResult(engine, query);
        expect(results.length).toBeGreaterThan(0);
        for (const result of results) {
          const which = sourceOf.get(result.sessionId);
          expect(which, result.sessionId).toBeDefined();
          const own = documents[which as number] as Map<number, string>;
          for (const hit of result.hits) {
            const text = own.get(hit.seq);
            expect(text, `${result.sessionId} seq ${hit.seq} is on its surface`).toBeDefined();
            const core = hit.snippet.replace(/^…/, '').replace(/…$/, '');
            expect(shown(text as string), `${query}: ${result.sessionId} seq ${hit.seq}`).toContain(core);
            expect(hit.highlights.length).toBeGreaterThan(0);
            const first = query.split(' ')[0] as string;
            // A highlight is the phrase (or, cut by the excerpt's end, a part of it): the same tokens.
            for (const [start, end] of hit.highlights) expect(tokens(query)).toContain(tokens(hit.snippet.slice(start, end)));
            expect(hit.snippet.toLowerCase()).toContain(first.toLowerCase());
            checked += 1;
          }
        }
      }
      // Both logs' copies were checked, over several pages.
      expect(checked).toBeGreaterThan(COPIES);
    } finally {
      await engine.close();
    }
  });
});
