/**
 * CLI start-up (issue 26): the built `sessionctx` executable as a person runs it, each run a fresh process, beside
 * the floor of starting Node at all (`node -e ''`), measured interleaved in one run so the ratios hold under load.
 * Targets: `--version` within 2× of the floor, `sessions` on a 12-session root within 4× (the dispatcher imports only
 * the named command's module; `--version` none); and `search` one-shot on the same root with a warm index within
 * 300 ms (issue 27).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { writeDiscoveryCorpus } from './support/corpus-generator.js';
import { measureInterleaved } from './support/interleaved.js';
import { markdownTable } from './support/measure.js';

const run = promisify(execFile);
/** The built executable (this file runs from dist/bench). */
const BIN = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', 'src', 'main', 'faces', 'cli', 'bin.js');
const SESSIONS = 12;
const ROUNDS = 15;

/** Runs `node <args>` to its end in the given environment. */
async function node(args: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  await run(process.execPath, [...args], { env, maxBuffer: 16 * 1024 * 1024 });
}

/** The one-shot search contender (a phrase in every session of the root). */
const SEARCH = `sessionctx search checkout (${SESSIONS} sessions, warm index)`;

/** Runs CLI start-up and returns its markdown report. */
export async function runCliStartup(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-cli-startup-'));
  try {
    const root = join(dir, 'root');
    await writeDiscoveryCorpus(root, SESSIONS, 3, 'zstd');
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: join(dir, 'cache'), NO_COLOR: '1' };
    // The title index is built once, as it is after a user's first command; every measured run then reads it.
    await node([BIN, 'sessions', '--root', root], env);
    // And the search index once (issue 27's "`sessionctx search` one-shot, 12-session root, warm cache").
    await node([BIN, 'search', 'checkout', '--root', root], env);
    const floor = "node -e ''";
    const rows = await measureInterleaved(
      {
        [floor]: () => node(['-e', ''], env),
        'sessionctx --version': () => node([BIN, '--version'], env),
        [`sessionctx sessions (${SESSIONS} sessions, zstd)`]: () => node([BIN, 'sessions', '--root', root], env),
        [`sessionctx sessions --no-workers (${SESSIONS} sessions)`]: () => node([BIN, 'sessions', '--no-workers', '--root', root], env),
        [SEARCH]: () => node([BIN, 'search', 'checkout', '--root', root], env),
      },
      ROUNDS,
    );
    const ratio = (name: string): number =>
      (rows.find((row) => row.name === name)?.medianMs ?? Number.NaN) / (rows.find((row) => row.name === floor)?.medianMs ?? Number.NaN);
    const version = ratio('sessionctx --version');
    const sessions = ratio(`sessionctx sessions (${SESSIONS} sessions, zstd)`);
    const searchMs = rows.find((row) => row.name === SEARCH)?.medianMs ?? Number.NaN;
    return [
      '### CLI start-up — fresh processes, interleaved with the floor',
      '',
      `Each contender is one process from spawn to exit, ${ROUNDS} interleaved rounds; the root holds ${SESSIONS} generated`,
      'sessions (3 turns each, zstd), its title index built once before the rounds.',
      '',
      markdownTable(rows, floor),
      '',
      `\`--version\` / floor: **${version.toFixed(2)}** (target ≤ 2: ${version <= 2 ? 'met' : 'not met'}); ` +
        `\`sessions\` / floor: **${sessions.toFixed(2)}** (target ≤ 4: ${sessions <= 4 ? 'met' : 'not met'}); ` +
        `\`search\` one-shot, warm index: **${searchMs.toFixed(0)} ms** median (target ≤ 300 ms: ${searchMs <= 300 ? 'met' : 'not met'}).`,
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
