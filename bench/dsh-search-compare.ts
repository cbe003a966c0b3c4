/**
 * Suite `dshsearch` (issue 27 item 2): sessionctx's full-text search beside dsh's `searchSessions`
 * (`@deepseek-ai/dsh-session-query-sqlite` 0.1.0-rc.8) on the same generated root, in one run — the cold first search
 * (index build included), warm p50/p95 over a fixed query set, the first search after appending a turn to 1% of the
 * logs, and which sessions each finds, with the event every difference is in.
 *
 * Two processes: sessionctx's search loads `better-sqlite3`, built for the repository's Node 20, and dsh needs Node
 * 22 — so our engine runs here, from the build (`dist/src`, what the tarball ships), and dsh's in a real dsh host on
 * the test package's Node 22 (`test/dsh-host/bench/search-compare.mts`), driven request by request over a pipe. Each
 * side times its own calls with the same event-loop gap meter, so the pipe is in neither figure; the sides take turns
 * (the order flips every round), so a burst of load on the shared machine falls on both alike.
 *
 * The corpus is `bench/support/dsh-corpus.ts` in zstd, dsh's default encoding (both read it), in os.tmpdir(), like
 * every index and cache directory of the run, all removed afterwards. `DSH_SEARCH_SESSIONS` sets its size (default
 * 2,000; 10,000 for the scale), `DSH_SEARCH_PROJECTS` its working directories (default 400),
 * `DSH_SEARCH_ROUNDS` the warm rounds (default 5), `DSH_SEARCH_COLD_ROUNDS` the cold builds per side (default 1: dsh's
 * takes minutes at 2,000 sessions).
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createEngine, type LocalSessionEngine } from '../src/main/engine/assembly/create-engine.js';
import type { SessionEvent } from '../src/protocol/events.js';
import type { SearchPage } from '../src/protocol/search-types.js';
import { encodeStorageBatch } from '../src/protocol/storage-rows.js';
import { SEARCH_DATABASE_FILE } from '../src/workers/search/search-database.js';
import { compressFrame } from '../src/workers/decode/zstd-codec.js';
import { dshCorpusSession, writeDshCorpus, type DshCorpusOptions } from './support/dsh-corpus.js';
import { withGaps, type GapFigures } from './support/event-loop-gaps.js';
import { rowOf } from './support/interleaved.js';
import { artifactPathOf } from './support/long-session.js';
import { searchTokens } from './support/search-tokens.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const HOST_PACKAGE = join(REPO, 'test', 'dsh-host');

const SESSIONS = Number(process.env['DSH_SEARCH_SESSIONS'] ?? 2_000);
const ROUNDS = Number(process.env['DSH_SEARCH_ROUNDS'] ?? 5);
const COLD_ROUNDS = Number(process.env['DSH_SEARCH_COLD_ROUNDS'] ?? 1);
/** Working directories of the corpus (the generator's default 400): dsh reads a log by id by trying every one. */
const PROJECTS = Number(process.env['DSH_SEARCH_PROJECTS'] ?? 400);
const CORPUS: DshCorpusOptions = { sessions: SESSIONS, projects: PROJECTS };
const LIMIT = 20;
/** Both sides' largest page: the fewest round trips when every match is wanted. */
const MAX_LIMIT = 100;
/** How long both sides are left alone after the appends (our corpus view takes the watcher's notifications). */
const SETTLE_MS = 1000;

/** The timed query set (the four kinds). */
const TIMED: ReadonlyArray<{ readonly kind: string; readonly query: string }> = [
  // A user prompt's opening ("<verb> the <topic> …"): Document × auth, about 1 session in 70.
  { kind: 'narrow phrase', query: 'document the auth' },
  // Every user prompt has it.
  { kind: 'broad word (every session)', query: 'the' },
  { kind: 'no match', query: 'xylophone quasar' },
  // Two words of the generator's vocabulary next to each other, anywhere in the synthetic text.
  { kind: 'two words', query: 'retention budget' },
];

/** Untimed probes, one per kind of text the two indexes treat differently (the shadowed one is built per corpus). */
const PROBES: ReadonlyArray<{ readonly kind: string; readonly query: string }> = [
  { kind: 'tool name (tool calls only)', query: 'read file' },
  { kind: 'reasoning only', query: 'thinking about' },
  { kind: 'compaction checkpoint', query: 'native summary after turn' },
  { kind: 'titles only', query: 'checkout issue' },
];

const APPENDED_QUERY = 'marmot appended note';

/** One answer line of the dsh side. */
interface Answer {
  readonly ok: boolean;
  readonly value?: unknown;
  readonly error?: string;
}

/** A timed search of either side: the figures and the ids of the page. */
interface Timed extends GapFigures {
  readonly ids: readonly string[];
}

/** dsh's best match of one session. */
interface BestMatch {
  readonly id: string;
  readonly seq: number;
  readonly type: string;
  readonly surface: string;
}

/** The dsh side: requests in order over the child's stdin, answers from its stdout. */
class DshSide {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: Array<(answer: Answer) => void> = [];
  private readonly exited: Promise<number | null>;

  constructor(node22: string) {
    this.child = spawn(node22, ['--no-warnings', join('bench', 'search-compare.mts')], { cwd: HOST_PACKAGE, stdio: 'pipe' });
    this.child.stderr.pipe(process.stderr);
    this.exited = new Promise((resolve) => this.child.once('exit', resolve));
    const mark = '@@search-compare ';
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      // Anything else a plugin prints goes to stderr, out of the report.
      if (!line.startsWith(mark)) return void process.stderr.write(`${line}\n`);
      this.waiting.shift()?.(JSON.parse(line.slice(mark.length)) as Answer);
    });
  }

  async request<T>(request: Record<string, unknown>): Promise<T> {
    const answer = await Promise.race([
      new Promise<Answer>((resolve) => {
        this.waiting.push(resolve);
        this.child.stdin.write(`${JSON.stringify(request)}\n`);
      }),
      this.exited.then((code): Answer => ({ ok: false, error: `the dsh side exited with ${String(code)}` })),
    ]);
    if (!answer.ok) throw new Error(`bench dshsearch: dsh ${String(request['op'])}: ${answer.error ?? 'failed'}`);
    return answer.value as T;
  }

  async close(): Promise<void> {
    await this.request({ op: 'close' });
    this.child.stdin.end();
    await this.exited;
  }
}

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
};
const median = (values: readonly number[]): number => rowOf('', values).medianMs;
const ms = (value: number): string => (value >= 100 ? value.toFixed(0) : value.toFixed(1));
/** Ours ÷ dsh; two significant digits below 0.1, where two decimals would read 0.00. */
const ratio = (ours: number, dsh: number): string => {
  if (dsh === 0) return 'n/a';
  const value = ours / dsh;
  return `**${value < 0.1 ? value.toPrecision(2) : value.toFixed(2)}**`;
};

function hasPhrase(text: string, phrase: readonly string[]): boolean {
  const have = searchTokens(text);
  outer: for (let at = 0; at + phrase.length <= have.length; at += 1) {
    for (let index = 0; index < phrase.length; index += 1) if (have[at + index] !== phrase[index]) continue outer;
    return true;
  }
  return false;
}

/** The corpus index of a generated session id (`session-<7 digits>-<hex>`). */
const indexOf = (id: string): number => Number(id.slice('session-'.length, 'session-'.length + 7));

/**
 * Which part of the generated event holds the phrase: the text, a tool call's name and arguments, reasoning, a
 * tool's result, a compaction checkpoint's text — what decides whether our index (and with which setting) holds it.
 */
function partOf(event: SessionEvent | undefined, query: string): string {
  if (event === undefined) return '?';
  const phrase = searchTokens(query);
  const data = event.data as Record<string, unknown>;
  const blocks = (content: unknown): Array<Record<string, unknown>> => (Array.isArray(content) ? content : []);
  const parts = new Set<string>();
  const scan = (content: unknown, textPart: string): void => {
    for (const block of blocks(content)) {
      if (block['type'] === 'text' && hasPhrase(String(block['text']), phrase)) parts.add(textPart);
      if (block['type'] === 'reasoning' && hasPhrase(String(block['text']), phrase)) parts.add('reasoning');
      if (block['type'] === 'tool-call' && hasPhrase(`${String(block['name'])} ${String(block['arguments'])}`, phrase))
        parts.add('tool-call');
      if (block['type'] === 'tool-result') scan(block['content'], 'result');
    }
  };
  switch (event.type) {
    case 'user/message': {
      const source = data['source'] as { kind?: string } | undefined;
      scan(data['content'], source?.kind === 'user' ? 'text' : `${String(source?.kind)} text`);
      break;
    }
    case 'assistant/message':
    case 'tool/result':
      scan((data['message'] as { content?: unknown } | undefined)?.content, 'text');
      break;
    case 'tool/call':
      if (hasPhrase(`${String(data['name'])} ${String(data['arguments'])}`, phrase)) parts.add('name+arguments');
      break;
  }
  return parts.size === 0 ? '' : `[${[...parts].join('+')}]`;
}

/** The generated event of a session (the corpus as written, before the appends). */
function generatedEvent(id: string, seq: number): SessionEvent | undefined {
  return dshCorpusSession(indexOf(id), CORPUS).events[seq];
}

/**
 * Probes cut from the first long session (index 49: the generator makes every 50th long), six words from the middle
 * of one text — six of the generator's 19 words in a row are rare enough to be that text's alone: its first user
 * prompt (its compaction replaces every earlier node: shadowed text) and its last tool result (current, tool text).
 */
function cutProbes(): Array<{ kind: string; query: string }> {
  const events = dshCorpusSession(49, CORPUS).events;
  const cut = (event: SessionEvent | undefined, content: (data: never) => unknown): string => {
    const text = (content(event?.data as never) as Array<{ text: string }>)[0]?.text ?? '';
    return searchTokens(text).slice(10, 16).join(' ');
  };
  const prompt = events.find((event) => event.type === 'user/message');
  const result = events.findLast((event) => event.type === 'tool/result');
  return [
    { kind: 'shadowed by a compaction', query: cut(prompt, (data: { content: unknown }) => data.content) },
    {
      kind: 'tool result (current)',
      query: cut(result, (data: { message: { content: Array<{ content: unknown }> } }) => data.message.content[0]?.content),
    },
  ];
}

async function oursTimed(engine: LocalSessionEngine, query: string, limit: number): Promise<Timed> {
  let ids: string[] = [];
  const figures = await withGaps(async () => {
    const page = await engine.searchSessions({ query, limit });
    ids = page.results.map((result) => result.sessionId);
  });
  return { ...figures, ids };
}

/** Every session our engine finds for `query`, with its best hit's role and seq. */
async function oursAll(engine: LocalSessionEngine, query: string): Promise<Map<string, { role: string; seq: number }>> {
  const found = new Map<string, { role: string; seq: number }>();
  let cursor: string | undefined;
  do {
    const page: SearchPage = await engine.searchSessions({ query, limit: MAX_LIMIT, ...(cursor === undefined ? {} : { cursor }) });
    for (const result of page.results) {
      const hit = result.hits[0];
      found.set(result.sessionId, { role: hit?.role ?? '?', seq: hit?.seq ?? -1 });
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return found;
}

async function dshAll(dsh: DshSide, query: string): Promise<Map<string, BestMatch>> {
  const { best } = await dsh.request<{ best: BestMatch[] }>({ op: 'all', query });
  return new Map(best.map((match) => [match.id, match]));
}

/** The bytes of a SQLite index file with its WAL. */
function indexBytes(path: string): number {
  let bytes = 0;
  for (const file of [path, `${path}-wal`]) if (existsSync(file)) bytes += statSync(file).size;
  return bytes;
}

function openEngine(dir: string, name: string, includeTools: boolean): Promise<LocalSessionEngine> {
  return createEngine({
    root: join(dir, 'root'),
    compression: 'zstd',
    store: { cacheDirectory: join(dir, `${name}-cache`) },
    search: { directory: join(dir, `${name}-search`), includeTools },
  });
}

/** Runs the comparison and returns its markdown report. */
export async function runDshSearchCompare(): Promise<string> {
  const node22 = join(HOST_PACKAGE, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(node22)) {
    const installed = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: HOST_PACKAGE, stdio: 'inherit' });
    if (installed.status !== 0) throw new Error('bench dshsearch: could not install test/dsh-host (npm ci)');
  }
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-dshsearch-'));
  const savedCache = process.env['XDG_CACHE_HOME'];
  // Nothing of either side may reach the user's cache: the child inherits this too.
  process.env['XDG_CACHE_HOME'] = join(dir, 'xdg-cache');
  const dsh = new DshSide(node22);
  try {
    const root = join(dir, 'root');
    const written = await writeDshCorpus(root, CORPUS, 'zstd');
    const probes = [...PROBES, ...cutProbes()];

    // Cold: a fresh engine / host with an empty index directory each round, the first search builds the index.
    const cold = { ours: [] as GapFigures[], dsh: [] as GapFigures[], oursBoot: [] as number[], dshBoot: [] as number[] };
    let engine: LocalSessionEngine | undefined;
    let oursIndex = '';
    let dshIndex = '';
    for (let round = 0; round < COLD_ROUNDS; round += 1) {
      const last = round === COLD_ROUNDS - 1;
      const sides = [
        async () => {
          await engine?.close();
          const started = performance.now();
          engine = await openEngine(dir, `ours-${round}`, false);
          cold.oursBoot.push(performance.now() - started);
          cold.ours.push(await oursTimed(engine, TIMED[0]?.query as string, LIMIT));
          oursIndex = join(dir, `ours-${round}-search`, SEARCH_DATABASE_FILE);
        },
        async () => {
          dshIndex = join(dir, `dsh-${round}`, 'index.sqlite');
          cold.dshBoot.push((await dsh.request<{ ms: number }>({ op: 'boot', root, index: dshIndex })).ms);
          cold.dsh.push(await dsh.request<Timed>({ op: 'search', query: TIMED[0]?.query, limit: LIMIT }));
        },
      ];
      for (const side of round % 2 === 0 ? sides : sides.reverse()) await side();
      if (!last) rmSync(join(dir, `ours-${round}-search`), { recursive: true, force: true });
    }
    const ours = engine as unknown as LocalSessionEngine;

    // Warm: every query on both sides per round, the side going first alternating.
    const warm = new Map(TIMED.map(({ query }) => [query, { ours: [] as number[], dsh: [] as number[] }]));
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [at, { query }] of TIMED.entries()) {
        const times = warm.get(query) as { ours: number[]; dsh: number[] };
        const sides = [
          async () => times.ours.push((await oursTimed(ours, query, LIMIT)).ms),
          async () => times.dsh.push((await dsh.request<Timed>({ op: 'search', query, limit: LIMIT })).ms),
        ];
        for (const side of (round + at) % 2 === 0 ? sides : sides.reverse()) await side();
      }
    }

    // Which sessions each finds: every page of every query and probe, on the unchanged corpus.
    const compared: Array<{
      kind: string;
      query: string;
      ours: Map<string, { role: string; seq: number }>;
      dsh: Map<string, BestMatch>;
      reasons: Map<string, number>;
      samples: string[];
      withTools?: number;
    }> = [];
    for (const { kind, query } of [...TIMED, ...probes]) {
      const oursFound = await oursAll(ours, query);
      const dshFound = await dshAll(dsh, query);
      const reasons = new Map<string, number>();
      const samples: string[] = [];
      for (const [id, match] of dshFound) {
        if (oursFound.has(id)) continue;
        // The class of a dsh-only session: where dsh's strongest match is (ours holds nothing of it).
        const reason = `${match.type}${partOf(generatedEvent(id, match.seq), query)} (${match.surface})`;
        reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
        if (samples.length < 3) {
          const { events } = await dsh.request<{ events: Array<{ seq: number; type: string; surface: string }> }>({
            op: 'events',
            sessionId: id,
            query,
          });
          // Grouped by class, with the first seq of each: a long session has dozens of matching tool calls.
          const classes = new Map<string, number[]>();
          for (const event of events) {
            const label = `${event.type}${partOf(generatedEvent(id, event.seq), query)} ${event.surface}`;
            classes.set(label, [...(classes.get(label) ?? []), event.seq]);
          }
          const shown = [...classes].map(([label, seqs]) => `${seqs.length} × ${label} (#${Math.min(...seqs)}…)`);
          samples.push(`only dsh: \`${id}\` — dsh's matching events: ${shown.join(', ')}; ours: none`);
        }
      }
      for (const [id, hit] of oursFound) {
        if (dshFound.has(id)) continue;
        const reason = `ours only: ${hit.role} #${hit.seq}`;
        reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
        if (samples.length < 6) {
          const event = generatedEvent(id, hit.seq);
          samples.push(
            `only ours: \`${id}\` — our best hit: ${hit.role} #${hit.seq} ${event?.type ?? '?'}${partOf(event, query)}; dsh: none`,
          );
        }
      }
      compared.push({ kind, query, ours: oursFound, dsh: dshFound, reasons, samples });
    }

    // Ours with `search.includeTools: true` (default false): what the tool-text differences become.
    const withTools = await openEngine(dir, 'tools', true);
    let toolsBuild: GapFigures;
    try {
      toolsBuild = await withGaps(() => withTools.searchSessions({ query: TIMED[0]?.query as string, limit: LIMIT }));
      for (const entry of compared) {
        if (entry.reasons.size === 0) continue;
        const found = await oursAll(withTools, entry.query);
        entry.withTools = [...entry.dsh.keys()].filter((id) => !entry.ours.has(id) && found.has(id)).length;
      }
    } finally {
      await withTools.close();
    }

    // One more turn appended to 1% of the logs (one checksummed zstd frame each, as dsh's writer appends a batch).
    const appended = new Set<string>();
    for (let index = 0; index < SESSIONS; index += 100) {
      const session = dshCorpusSession(index, CORPUS);
      const base = session.events.length;
      const at = (session.events.at(-1)?.time ?? session.header.createdAt) + 1000;
      const turn = session.events.filter((event) => event.type === 'turn/start').length + 1;
      const more: SessionEvent[] = [
        { type: 'turn/start', seq: base, time: at, data: { turn } },
        {
          type: 'user/message',
          seq: base + 1,
          time: at + 1,
          data: {
            content: [{ type: 'text', text: `${APPENDED_QUERY} ${index}` }],
            source: { kind: 'user' },
            role: 'user',
            id: `u-${turn}`,
          },
          surfaceOp: 'append',
        },
        { type: 'step/start', seq: base + 2, time: at + 2, data: { turn, step: 1 } },
        {
          type: 'assistant/message',
          seq: base + 3,
          time: at + 3,
          data: {
            turn,
            step: 1,
            message: {
              role: 'assistant',
              content: [{ type: 'text', text: 'Noted.' }],
              source: { kind: 'model', provider: 'oracle', model: 'oracle-chat-128k' },
              id: `a-${turn}`,
            },
          },
          surfaceOp: 'append',
        },
        { type: 'step/end', seq: base + 4, time: at + 4, data: { turn, step: 1 } },
        { type: 'turn/end', seq: base + 5, time: at + 5, data: { turn, reason: { kind: 'completed' } } },
      ];
      const frame = compressFrame(new TextEncoder().encode(encodeStorageBatch(more, true)));
      await appendFile(artifactPathOf(root, session.header, 'zstd'), frame);
      appended.add(session.header.id);
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const afterOurs = await oursTimed(ours, APPENDED_QUERY, LIMIT);
    const afterDsh = await dsh.request<Timed>({ op: 'search', query: APPENDED_QUERY, limit: LIMIT });
    const exactly = (found: Iterable<string>): boolean => {
      const set = new Set(found);
      return set.size === appended.size && [...appended].every((id) => set.has(id));
    };
    const oursAfterAll = exactly((await oursAll(ours, APPENDED_QUERY)).keys());
    const dshAfterAll = exactly((await dshAll(dsh, APPENDED_QUERY)).keys());
    const sizes = { ours: indexBytes(oursIndex), dsh: indexBytes(dshIndex) };
    const profile = await dsh.request<{ listMs: number; sessions: number; inspectMs: number }>({ op: 'profile', inspect: 20 });
    await ours.close();

    const coldOurs = median(cold.ours.map((figure) => figure.ms));
    const coldDsh = median(cold.dsh.map((figure) => figure.ms));
    const allOurs = [...warm.values()].flatMap((times) => times.ours);
    const allDsh = [...warm.values()].flatMap((times) => times.dsh);
    const yes = (value: boolean): string => (value ? 'yes' : '**NO**');
    const lines = [
      `### dshsearch (issue 27 item 2) — sessionctx search beside dsh's \`searchSessions\`, ${SESSIONS.toLocaleString('en-US')} sessions`,
      '',
      `Corpus: \`bench/support/dsh-corpus.ts\`, zstd (dsh's default encoding; both read it), ${(written.bytes / 1e6).toFixed(1)} MB on disk, ${written.long} long sessions (tool calls, one compaction each), ${written.compactions} compactions. Ours: \`createEngine({ root, search: { directory } })\` on Node ${process.version} (defaults: warm corpus view, \`includeTools: false\`). dsh: a real dsh 0.1.0-rc.8 host (\`test/dsh-host/harness/dsh-host.mts\`) with \`@deepseek-ai/dsh-session-query-sqlite\` (\`openAt: 'first-search'\`, its index file in a temporary directory) on Node 22. Each side times its own calls in its own process; limit ${LIMIT}; cold: median of ${COLD_ROUNDS} fresh builds per side; warm: ${ROUNDS} rounds, the side going first alternating.`,
      '',
      '| measurement | sessionctx | dsh | ours ÷ dsh |',
      '|---|---:|---:|---:|',
      `| start (\`createEngine\` / host boot, median) | ${ms(median(cold.oursBoot))} ms | ${ms(median(cold.dshBoot))} ms | ${ratio(median(cold.oursBoot), median(cold.dshBoot))} |`,
      `| cold: first search, index built from nothing | ${ms(coldOurs)} ms | ${ms(coldDsh)} ms | ${ratio(coldOurs, coldDsh)} |`,
      `| cold: the caller's largest event-loop gap meanwhile | ${ms(median(cold.ours.map((f) => f.maxStallMs)))} ms | ${ms(median(cold.dsh.map((f) => f.maxStallMs)))} ms | ${ratio(median(cold.ours.map((f) => f.maxStallMs)), median(cold.dsh.map((f) => f.maxStallMs)))} |`,
      ...TIMED.map(({ kind, query }) => {
        const times = warm.get(query) as { ours: number[]; dsh: number[] };
        return `| warm ${kind} ${JSON.stringify(query)}: p50 / p95 | ${ms(percentile(times.ours, 50))} / ${ms(percentile(times.ours, 95))} ms | ${ms(percentile(times.dsh, 50))} / ${ms(percentile(times.dsh, 95))} ms | ${ratio(percentile(times.ours, 50), percentile(times.dsh, 50))} |`;
      }),
      `| warm, all ${TIMED.length} queries × ${ROUNDS}: p50 / p95 | ${ms(percentile(allOurs, 50))} / ${ms(percentile(allOurs, 95))} ms | ${ms(percentile(allDsh, 50))} / ${ms(percentile(allDsh, 95))} ms | ${ratio(percentile(allOurs, 50), percentile(allDsh, 50))} |`,
      `| first search after a turn appended to 1% (${appended.size}) of the logs (${SETTLE_MS} ms later) | ${ms(afterOurs.ms)} ms | ${ms(afterDsh.ms)} ms | ${ratio(afterOurs.ms, afterDsh.ms)} |`,
      `| …its largest event-loop gap | ${ms(afterOurs.maxStallMs)} ms | ${ms(afterDsh.maxStallMs)} ms | ${ratio(afterOurs.maxStallMs, afterDsh.maxStallMs)} |`,
      `| …then finds exactly the ${appended.size} appended sessions | ${yes(oursAfterAll)} | ${yes(dshAfterAll)} | |`,
      `| index file with its WAL | ${(sizes.ours / 1e6).toFixed(1)} MB | ${(sizes.dsh / 1e6).toFixed(1)} MB | ${ratio(sizes.ours, sizes.dsh)} |`,
      '',
      `Where dsh's time goes (its JSONL backend, timed in the same host): one \`listSnapshots()\` of the root (every log's header frame; each search takes two, before and after its reads) ${ms(profile.listMs)} ms for ${profile.sessions.toLocaleString('en-US')} sessions; one \`inspect(id)\` (a whole log read by id, for every new or changed session, one at a time; the id is looked up in each of the ${written.projectDirs} project directories) ${ms(profile.inspectMs)} ms on average over 20.`,
      '',
      `Which sessions each finds (every page; \`includeTools: true\`: a second engine of ours with tool text indexed, built in ${ms(toolsBuild.ms)} ms — how many of the dsh-only sessions it finds):`,
      '',
      "| query | kind | ours | dsh | both | only ours | only dsh | why (where the match is: dsh's best event, or our best hit) | `includeTools: true` finds |",
      '|---|---|---:|---:|---:|---:|---:|---|---:|',
      ...compared.map((entry) => {
        const both = [...entry.ours.keys()].filter((id) => entry.dsh.has(id)).length;
        const why = [...entry.reasons].map(([reason, count]) => `${count} × ${reason}`).join('; ');
        return `| ${JSON.stringify(entry.query)} | ${entry.kind} | ${entry.ours.size} | ${entry.dsh.size} | ${both} | ${entry.ours.size - both} | ${entry.dsh.size - both} | ${why === '' ? 'same sets' : why} | ${entry.withTools ?? ''} |`;
      }),
      '',
      'Samples of sessions only one side finds (event seq, type, `[part]` holding the phrase, dsh surface):',
      '',
      ...compared.flatMap((entry) => entry.samples.map((sample) => `- ${JSON.stringify(entry.query)}: ${sample}`)),
    ];
    return lines.join('\n');
  } finally {
    await dsh.close().catch(() => {});
    if (savedCache === undefined) delete process.env['XDG_CACHE_HOME'];
    else process.env['XDG_CACHE_HOME'] = savedCache;
    rmSync(dir, { recursive: true, force: true });
  }
}
