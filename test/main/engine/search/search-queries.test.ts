// Issue 17 item 3: filters (cwd, time range, roles), cursor pagination, ranking and the per-session hit bound,
// CJK phrases through the trigram table (and the documented 3-character limit), tool text only with
// `search.includeTools`, reasoning never, and the canonical mention of each result.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type LocalSessionEngine } from '../../../../src/main/engine/assembly/create-engine.js';
import { formatSessionReferenceMention } from '../../../../src/protocol/uri/mention-formatter.js';
import { artifactBytes, artifactPathOf, longSession } from '../../../../bench/support/long-session.js';
import { CorpusSession, writeSession } from './search-corpus.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

let dir: string;
let root: string;
const T0 = 1_767_225_600_000;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-search-queries-'));
  root = join(dir, 'root');
  for (let index = 0; index < 7; index += 1) {
    const session = new CorpusSession(`s-${index}`, index < 4 ? '/work/a' : '/work/b', T0 + index * 10_000_000);
    // Session i mentions "invoice" i+1 times in its answer: more mentions rank higher.
    session.turn(`prompt ${index}`, `${'invoice '.repeat(index + 1)}end`, 'hidden thought about invoice');
    session.turn(`second prompt mentions invoice once`, 'fine');
    await writeSession(root, session, 'none');
  }
  const cjk = new CorpusSession('s-cjk', '/work/c', T0);
  cjk.turn('東京タワーに行きました', '了解です');
  await writeSession(root, cjk, 'none');
  // A session with tool calls and results (bench's dsh-shaped generator): its tool result text is "read_file" output.
  const tools = longSession({
    id: 's-tools',
    cwd: '/work/t',
    seed: 5,
    minEvents: 12,
    textBytes: 40,
    toolCallsPerTurn: 1,
    chunksPerAnswer: 1,
    compactAfterTurn: 0,
  });
  const path = artifactPathOf(root, tools.header, 'none');
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, artifactBytes(tools.header, tools.events, 'none'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

function open(name: string, search: Record<string, unknown> = {}): Promise<LocalSessionEngine> {
  return createEngine({
    root,
    compression: 'none',
    workers: false,
    corpus: { watch: false },
    store: { cacheDirectory: join(dir, `cache-${name}`) },
    search: { directory: join(dir, `search-${name}`), ...search },
  });
}

describe('queries', () => {
  let engine: LocalSessionEngine;
  beforeAll(async () => {
    engine = await open('main');
  });
  afterAll(async () => {
    await engine.close();
  });

  it('ranks sessions by their best hit and bounds hits per session (config hitsPerSession)', async () => {
    const page = await engine.searchSessions({ query: 'invoice', limit: 100 });
    expect(page.results.map((result) => result.sessionId)).toEqual(['s-6', 's-5', 's-4', 's-3', 's-2', 's-1', 's-0']);
    for (const result of page.results) {
      expect(result.hits.length).toBe(2);
      expect(result.hits[0]?.role).toBe('assistant');
      expect(result.mention).toBe(formatSessionReferenceMention({ sessionId: result.sessionId, label: result.label }));
    }
    const scores = page.results.map((result) => result.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('reasoning is never indexed', async () => {
    expect((await engine.searchSessions({ query: 'hidden thought' })).results).toEqual([]);
  });

  it('pages with an opaque cursor until every session was returned once', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await engine.searchSessions({ query: 'invoice', limit: 3, ...(cursor === undefined ? {} : { cursor }) });
      seen.push(...page.results.map((result) => result.sessionId));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    expect(seen).toEqual(['s-6', 's-5', 's-4', 's-3', 's-2', 's-1', 's-0']);
    // A cursor is bound to its query.
    const first = await engine.searchSessions({ query: 'invoice', limit: 3 });
    await expect(engine.searchSessions({ query: 'prompt', cursor: first.nextCursor as string })).rejects.toMatchObject({
      code: 'SEARCH_INVALID_CURSOR',
    });
  });

  it('filters by cwd, time range and role', async () => {
    const byCwd = await engine.searchSessions({ query: 'invoice', cwd: '/work/b', limit: 100 });
    expect(byCwd.results.map((result) => result.sessionId).sort()).toEqual(['s-4', 's-5', 's-6']);
    // Session i's events are at T0 + i·10^7 + k·1000: since/until select whole sessions here.
    const byTime = await engine.searchSessions({ query: 'invoice', since: T0 + 20_000_000, until: T0 + 40_000_000, limit: 100 });
    expect(byTime.results.map((result) => result.sessionId).sort()).toEqual(['s-2', 's-3']);
    const byRole = await engine.searchSessions({ query: 'invoice', roles: ['user'], limit: 100 });
    expect(byRole.results.length).toBe(7);
    for (const result of byRole.results) for (const hit of result.hits) expect(hit.role).toBe('user');
  });

  it('CJK phrases of 3 or more characters match inside words (trigram); shorter ones are SEARCH_INVALID_QUERY', async () => {
    const page = await engine.searchSessions({ query: 'タワー' });
    expect(page.results.map((result) => result.sessionId)).toEqual(['s-cjk']);
    const hit = page.results[0]?.hits[0];
    const [start, end] = hit?.highlights[0] ?? [0, 0];
    expect(hit?.snippet.slice(start, end)).toBe('タワー');
    await expect(engine.searchSessions({ query: '東京' })).rejects.toMatchObject({ code: 'SEARCH_INVALID_QUERY' });
  });

  it('tool calls and results are not indexed by default', async () => {
    expect((await engine.searchSessions({ query: 'read_file' })).results).toEqual([]);
  });
});

describe('search.includeTools', () => {
  it('indexes tool calls (name and arguments) and tool results with role tool', async () => {
    const engine = await open('tools', { includeTools: true });
    try {
      const page = await engine.searchSessions({ query: 'read_file', roles: ['tool'] });
      expect(page.results.map((result) => result.sessionId)).toEqual(['s-tools']);
      expect(page.results[0]?.hits.every((hit) => hit.role === 'tool')).toBe(true);
      const file = await engine.searchSessions({ query: 'src file 0 ts', roles: ['tool'] });
      expect(file.results.map((result) => result.sessionId)).toEqual(['s-tools']);
    } finally {
      await engine.close();
    }
  });
});
