/**
 * Every face tells the same truth (issue 26): the CLI (the built executable, one process per question), MCP (the
 * official SDK client over a real stdio child process) and the Web API (the real server over HTTP) are asked the same
 * questions over one copy of the dsh-written zstd root, and their answers are compared with dsh's own (the fixture's
 * `expected/`) and with each other's:
 * - discovery: every valid case of `candidates.json`, through each face that can pose it (the CLI takes a target and
 *   a cwd; the Web a target session of the corpus, whose cwd it reads; MCP a client root for the cwd, no target);
 * - snapshots: every case of `references.json` through the CLI (its budget flags carry the case's configuration) and
 *   the default-configuration cases through the Web, each equal to dsh's prompt or dsh's error code; MCP's snapshot of
 *   each session equals the CLI's for a message citing that session with the label MCP chose;
 * - search (dsh 0.1 has no full-text search to compare with): the three faces return the same sessions, labels,
 *   scores' order and hits for each phrase.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalSessionEngine } from '../../src/main/engine/assembly/create-engine.js';
import { createEngine } from '../../src/main/engine/assembly/create-engine.js';
import type { RunningWebServer } from '../../src/main/faces/web/web-server.js';
import { startWebServer } from '../../src/main/faces/web/web-server.js';
import { formatSessionReferenceMention } from '../../src/protocol/uri/mention-formatter.js';
import { encodeSessionReferenceUri } from '../../src/protocol/uri/session-uri.js';
import { CLI_BIN, runBuiltCli } from '../support/cli-process.js';
import { readExpected, ZSTD_ROOT } from '../support/fixtures.js';
import { callApi, signIn } from '../main/faces/web/web-test-support.js';

interface Candidate {
  readonly sessionId: string;
  readonly label: string;
  readonly cwd?: string;
  readonly createdAt: number;
}
interface CandidateCase {
  readonly target: { readonly id: string; readonly cwd?: string };
  readonly query: string;
  readonly limit: number | null;
  readonly kind: string;
  readonly result: readonly Candidate[] | { readonly error: { readonly code: string } };
}
interface ReferenceCase {
  readonly name: string;
  readonly target: { readonly id: string; readonly cwd?: string };
  readonly references: ReadonlyArray<{ readonly sessionId?: unknown; readonly label?: unknown }>;
  readonly config: { readonly maxReferenceBytes?: number; readonly maxReferences?: number };
  readonly result:
    | {
        readonly content: ReadonlyArray<{ readonly text: string }>;
        readonly additionalContext?: { readonly content: ReadonlyArray<{ readonly text: string }> };
      }
    | { readonly error: { readonly code: string } };
}
/** A search hit as every face reports it. */
interface FaceHit {
  readonly seq: number;
  readonly role: string;
  readonly snippet: string;
  readonly highlights: unknown;
}
interface FaceResult {
  readonly sessionId: string;
  readonly label: string;
  readonly hits: readonly FaceHit[];
}

const CANDIDATE_CASES = readExpected<CandidateCase[]>('candidates.json');
const REFERENCE_CASES = readExpected<ReferenceCase[]>('references.json');
const IDS_IN_CORPUS = new Set(readExpected<Array<{ header: { id: string } }>>('listing.json').map((entry) => entry.header.id));

let dir: string;
let root: string;
let engine: LocalSessionEngine;
let server: RunningWebServer;
let cookie: string;
const clients: Client[] = [];

/** The environment of every child: a home of its own, no colour; the suite's cache directory (global setup). */
function childEnv(): Record<string, string> {
  return { ...(process.env as Record<string, string>), HOME: join(dir, 'home'), NO_COLOR: '1' };
}

/** Runs `tasks` at most `width` at a time (the CLI questions are independent processes). */
async function inBatches<T>(tasks: ReadonlyArray<() => Promise<T>>, width = 4): Promise<T[]> {
  const out: T[] = [];
  for (let start = 0; start < tasks.length; start += width)
    out.push(...(await Promise.all(tasks.slice(start, start + width).map((task) => task()))));
  return out;
}

async function cli(args: readonly string[]): Promise<{ code: number; json: any }> {
  const { code, stdout } = await runBuiltCli([...args, '--root', root, '--json'], { env: childEnv(), timeoutMs: 60_000 });
  return { code, json: stdout === '' ? undefined : JSON.parse(stdout) };
}

/** An MCP client over stdio whose roots are `roots` (none: no roots capability). */
async function mcp(roots: readonly string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_BIN, 'mcp', '--root', root],
    env: childEnv(),
    stderr: 'ignore',
  });
  const client = new Client(
    { name: 'faces-agree', version: '0' },
    roots.length === 0 ? {} : { capabilities: { roots: { listChanged: true } } },
  );
  if (roots.length > 0)
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((path) => ({ uri: pathToFileURL(path).href })) }));
  await client.connect(transport);
  clients.push(client);
  return client;
}

const candidateOf = (found: Candidate): Candidate => ({
  sessionId: found.sessionId,
  label: found.label,
  ...(found.cwd === undefined ? {} : { cwd: found.cwd }),
  createdAt: found.createdAt,
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessionctx-faces-'));
  root = join(dir, 'sessions');
  await cp(ZSTD_ROOT, root, { recursive: true });
  engine = await createEngine({ root, workers: false, sourceCache: false });
  // Wired as `sessionctx serve` wires it.
  server = await startWebServer({
    engine,
    assetsDir: join(dir, 'no-assets'),
    search: (query, signal) => engine.searchSessions(query, signal),
  });
  cookie = await signIn(server.port, server.token);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await server?.close();
  await engine?.close();
  await rm(dir, { recursive: true, force: true });
});

const VALID_CANDIDATE_CASES = CANDIDATE_CASES.filter((entry) => Array.isArray(entry.result));

describe('discovery: every face answers as dsh discovers', () => {
  it(`the CLI, for each of dsh's ${VALID_CANDIDATE_CASES.length} discovery cases`, async () => {
    const answers = await inBatches(
      VALID_CANDIDATE_CASES.map((entry) => () => {
        const args = ['sessions', '--query', entry.query, '--target', entry.target.id];
        if (entry.target.cwd !== undefined && !IDS_IN_CORPUS.has(entry.target.id)) args.push('--cwd', entry.target.cwd);
        if (entry.limit !== null) args.push('--limit', String(entry.limit));
        return cli(args);
      }),
    );
    answers.forEach(({ code, json }, index) => {
      const entry = VALID_CANDIDATE_CASES[index] as CandidateCase;
      expect({ query: entry.query, target: entry.target, code, found: (json.candidates as Candidate[]).map(candidateOf) }).toEqual({
        query: entry.query,
        target: entry.target,
        code: 0,
        found: entry.result,
      });
    });
  });

  it('the Web, for every case whose target is a session of the corpus (the page cites from one)', async () => {
    const cases = VALID_CANDIDATE_CASES.filter((entry) => IDS_IN_CORPUS.has(entry.target.id));
    expect(cases.length).toBeGreaterThan(40);
    for (const entry of cases) {
      const { reply } = await callApi(server.port, cookie, 'sessions/candidates', {
        target: entry.target.id,
        query: entry.query,
        ...(entry.limit === null ? {} : { limit: entry.limit }),
      });
      expect({ query: entry.query, target: entry.target, found: (reply.value as Candidate[]).map(candidateOf) }).toEqual({
        query: entry.query,
        target: entry.target,
        found: entry.result,
      });
    }
  });

  it("MCP, for every case posed from outside the corpus (the client's root is the cwd, nothing to exclude)", async () => {
    const cases = VALID_CANDIDATE_CASES.filter((entry) => !IDS_IN_CORPUS.has(entry.target.id));
    expect(cases.length).toBeGreaterThan(10);
    const byCwd = new Map<string, Client>();
    for (const entry of cases) {
      const cwd = entry.target.cwd ?? '';
      let client = byCwd.get(cwd);
      if (client === undefined) {
        client = await mcp(cwd === '' ? [] : [cwd]);
        byCwd.set(cwd, client);
      }
      const result = await client.callTool({
        name: 'find_sessions',
        arguments: { query: entry.query, ...(entry.limit === null ? {} : { limit: entry.limit }) },
      });
      const { sessions } = result.structuredContent as { sessions: Candidate[] };
      expect({ query: entry.query, target: entry.target, found: sessions.map(candidateOf) }).toEqual({
        query: entry.query,
        target: entry.target,
        found: entry.result,
      });
    }
  });

  it("every face refuses dsh's invalid limits (the CLI as a usage error, exit 2)", async () => {
    const invalid = CANDIDATE_CASES.filter((entry) => !Array.isArray(entry.result));
    expect(invalid.map((entry) => entry.limit)).toEqual([0, 2.5, -1]);
    const client = await mcp();
    for (const entry of invalid) {
      const { code } = await cli(['sessions', '--query', entry.query, '--target', entry.target.id, '--limit', String(entry.limit)]);
      expect(code).toBe(2);
      const { reply } = await callApi(server.port, cookie, 'sessions/candidates', {
        target: entry.target.id,
        query: entry.query,
        limit: entry.limit,
      });
      expect(reply.ok).toBe(false);
      const refused = await client.callTool({ name: 'find_sessions', arguments: { query: entry.query, limit: entry.limit } });
      expect(refused.isError).toBe(true);
      expect((refused.content as Array<{ text: string }>)[0]?.text).toMatch(/^MCP_INVALID_ARGUMENTS: /);
    }
  });
});

/** A case's message as a person types it: the fixture's sentence with canonical mentions of its references. */
function messageOf(entry: ReferenceCase): string | undefined {
  const mentions: string[] = [];
  for (const reference of entry.references) {
    if (typeof reference?.sessionId !== 'string' || (reference.label !== undefined && typeof reference.label !== 'string'))
      return undefined;
    mentions.push(
      formatSessionReferenceMention({
        sessionId: reference.sessionId,
        ...(reference.label === undefined ? {} : { label: reference.label }),
      }),
    );
  }
  return `Background for this task: ${mentions.join(', ')}.`;
}

/** A label a typed mention cannot carry as is: the formatter escapes control characters and lone surrogates (D5). */
const UNTYPABLE_LABEL = /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Where SESSION-REFERENCE.md D3 deliberately differs from dsh (dsh empties a text silently; we keep the notice): pinned
 * exactly by test/workers/reference/fixture-references.test.ts, left out here.
 */
const D3_DIVERGENT_CASES = new Set([
  'budget-512:session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca',
  'budget-300:session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca',
  'budget-400-compacted:session-547c4005-0b6e-49a0-9497-6be9b6b464cd',
]);

/** The cases a message can pose: string ids and labels a mention carries unchanged (dsh's shape errors cannot be typed). */
const TYPED_REFERENCE_CASES = REFERENCE_CASES.filter(
  (entry) =>
    messageOf(entry) !== undefined &&
    !D3_DIVERGENT_CASES.has(entry.name) &&
    entry.references.every((reference) => reference.sessionId !== '' && !UNTYPABLE_LABEL.test(String(reference.label ?? ''))),
);

const expectedOutcome = (entry: ReferenceCase): { context?: string; error?: string } =>
  'error' in entry.result ? { error: entry.result.error.code } : { context: entry.result.additionalContext?.content[0]?.text ?? '' };

describe("snapshots: every face hands over dsh's prompt", () => {
  it(`the CLI, for each of dsh's reference cases a message can pose, with the case's budget`, async () => {
    expect(TYPED_REFERENCE_CASES.length).toBeGreaterThan(55);
    const answers = await inBatches(
      TYPED_REFERENCE_CASES.map((entry) => () => {
        const args = ['prepare', messageOf(entry) as string, '--target', entry.target.id];
        if (entry.config.maxReferenceBytes !== undefined) args.push('--max-bytes', String(entry.config.maxReferenceBytes));
        if (entry.config.maxReferences !== undefined) args.push('--max-references', String(entry.config.maxReferences));
        return cli(args);
      }),
    );
    answers.forEach(({ json }, index) => {
      const entry = TYPED_REFERENCE_CASES[index] as ReferenceCase;
      const got =
        json.error === undefined ? { context: json.additionalContext?.content?.[0]?.text ?? '' } : { error: json.error.code as string };
      expect({ name: entry.name, ...got }).toEqual({ name: entry.name, ...expectedOutcome(entry) });
    });
  });

  it('the Web, for each default-configuration case, with the same outcome as the CLI and dsh', async () => {
    const cases = TYPED_REFERENCE_CASES.filter((entry) => Object.keys(entry.config).length === 0);
    expect(cases.length).toBeGreaterThan(35);
    for (const entry of cases) {
      const { reply } = await callApi(server.port, cookie, 'references/prepare', { content: messageOf(entry), target: entry.target.id });
      const got = reply.ok ? { context: reply.value.context ?? '' } : { error: reply.error.code as string };
      expect({ name: entry.name, ...got }).toEqual({ name: entry.name, ...expectedOutcome(entry) });
    }
  });

  it("MCP's snapshot of each session is the CLI's for a message citing it with MCP's label", async () => {
    const client = await mcp();
    const ids = [...IDS_IN_CORPUS].sort();
    const viaMcp = [];
    for (const id of ids) {
      const result = await client.callTool({ name: 'reference_sessions', arguments: { sessions: [encodeSessionReferenceUri(id)] } });
      expect(result.isError).not.toBe(true);
      viaMcp.push(result.structuredContent as { text: string; sessions: Array<{ sessionId: string; label: string }> });
    }
    const viaCli = await inBatches(
      viaMcp.map((snapshot) => () => {
        const [source] = snapshot.sessions;
        const mention = formatSessionReferenceMention({ sessionId: source?.sessionId ?? '', label: source?.label ?? '' });
        return cli(['prepare', `Background: ${mention}.`, '--target', 'session-00000000-0000-4000-8000-000000000000']);
      }),
    );
    viaMcp.forEach((snapshot, index) => {
      expect({ id: ids[index], text: viaCli[index]?.json.additionalContext.content[0].text }).toEqual({
        id: ids[index],
        text: snapshot.text,
      });
    });
  });
});

const PHRASES = ['tests', 'config loader', 'terraform', 'early stopping', '四舍五入', 'file watcher', 'no such phrase anywhere'];

const comparable = (results: readonly FaceResult[]) =>
  results.map((result) => ({
    sessionId: result.sessionId,
    label: result.label,
    hits: result.hits.map((hit) => ({ seq: hit.seq, role: hit.role, snippet: hit.snippet, highlights: hit.highlights })),
  }));

describe('search: the three faces find the same sessions, hits and snippets', () => {
  it.each(PHRASES)('"%s"', async (phrase) => {
    const viaCli = await cli(['search', phrase]);
    const client = clients[0] ?? (await mcp());
    const viaMcp = await client.callTool({ name: 'search_sessions', arguments: { query: phrase } });
    const { reply } = await callApi(server.port, cookie, 'search/sessions', { query: phrase });
    expect({ cli: viaCli.code, mcp: viaMcp.isError ?? false, web: reply.ok ? true : reply.error }).toEqual({
      cli: 0,
      mcp: false,
      web: true,
    });
    const cliResults = comparable((viaCli.json?.results ?? []) as FaceResult[]);
    expect(comparable((viaMcp.structuredContent as { results: FaceResult[] }).results)).toEqual(cliResults);
    expect(comparable((reply.value as { results: FaceResult[] }).results)).toEqual(cliResults);
    if (phrase === 'no such phrase anywhere') expect(cliResults).toEqual([]);
    else expect(cliResults.length).toBeGreaterThan(0);
  });
});
