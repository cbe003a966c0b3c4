/**
 * `sessionctx dcp` tells the truth (issue 26): `help` needs no session and no root; `stats --json` carries the
 * figures its text shows, as numbers (each compared with the line of the human text that shows it); an unknown
 * sub-command says what to run in the CLI's words; `compress`, which cannot act without a model, exits non-zero
 * and leaves the log's bytes alone.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/protocol/events.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { REPO_ROOT } from '../../../support/fixtures.js';
import { runBuiltCli } from '../../../support/cli-process.js';

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');
const SCENARIO = join(REPO_ROOT, 'examples', 'compress-scenario.json');
const ID = 'scenario-dcp-1';

interface StatsJson {
  readonly text: string;
  readonly appendedEvents: number;
  readonly stats: {
    readonly session: {
      readonly ledger: Record<string, number>;
      readonly activeBlockCount: number;
      readonly invalidationCounts: { dcp: number; native: number; mixed: number };
      readonly recentInvalidations: ReadonlyArray<{ firstSeq: number; position: number; reReadTokens: number; cause: string }>;
      readonly surfaceTokens: number;
      readonly historyReduction: number;
    };
    readonly domain: { readonly status: string; readonly reason?: string };
  };
}

let dir: string;
let root: string;
let logPath: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sessionctx-dcp-truth-'));
  root = join(dir, 'root');
  await run(process.execPath, [BIN, 'script', 'run', SCENARIO, '--root', root]);
  const store = await JsonlSessionStore.open({ root, compression: 'zstd' });
  logPath = (await store.locate(asSessionId(ID))) as string;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The value a labelled line of the stats text shows: `label: ~N` or `label: N`. */
function shown(text: string, label: string): string {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${label}: `));
  if (line === undefined) throw new Error(`the stats text has no line "${label}"`);
  return line.slice(label.length + 2);
}
const tokens = (text: string, label: string): number => Number(/^~(-?\d+)/.exec(shown(text, label))?.[1]);

describe('sessionctx dcp tells the truth', () => {
  it('help needs no --session and no root', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: join(dir, 'empty-home') };
    delete env.SESSIONCTX_ROOT;
    delete env.DSH_HOME;
    const human = await runBuiltCli(['dcp', 'help'], { env });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout.split('\n')[0]).toBe('DCP commands:');
    for (const name of ['help', 'context', 'stats', 'manual', 'sweep', 'show', 'decompress', 'recompress'])
      expect(human.stdout).toContain(`sessionctx dcp ${name}`);
    expect(human.stdout).not.toContain('/dcp');
    const json = await runBuiltCli(['dcp', 'help', '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ command: '/dcp help', kind: 'success', text: human.stdout.trimEnd() });
  });

  it('every other sub-command without --session is a usage error', async () => {
    const outcome = await runBuiltCli(['dcp', 'stats', '--root', root, '--json']);
    expect(outcome.code).toBe(2);
    expect(JSON.parse(outcome.stdout).error.code).toBe('CLI_USAGE');
  });

  it('stats --json carries every figure of its text as a number', async () => {
    const outcome = await runBuiltCli(['dcp', 'stats', '--session', ID, '--root', root, '--json']);
    expect(outcome.code, outcome.stderr).toBe(0);
    const { text, stats, appendedEvents } = JSON.parse(outcome.stdout) as StatsJson;
    const { session } = stats;
    expect(appendedEvents).toBe(0);
    expect(shown(text, 'blocks (hist/act)')).toBe(`${session.ledger.blockCount}/${session.activeBlockCount}`);
    expect(tokens(text, 'shadowed tokens')).toBe(session.ledger.shadowedTokens);
    expect(tokens(text, 'checkpoint tokens')).toBe(session.ledger.checkpointTokens);
    expect(tokens(text, 'prune tokens')).toBe(session.ledger.pruneTokens);
    expect(tokens(text, 'cleanup savings')).toBe(session.ledger.cleanupTokens);
    expect(tokens(text, 'expansion delta')).toBe(session.ledger.expansionTokens);
    expect(tokens(text, 'marker tokens')).toBe(session.ledger.markerTokens);
    expect(tokens(text, 'history reduction')).toBe(session.historyReduction);
    expect(Number(shown(text, 'prune replacements'))).toBe(session.ledger.pruneReplacements);
    expect(Number(shown(text, 'inline cleanups'))).toBe(session.ledger.inlineCleanups);
    const { dcp, native, mixed } = session.invalidationCounts;
    expect(shown(text, 'prefix invalidations')).toBe(`${dcp + native + mixed} (dcp ${dcp}, native ${native}, mixed ${mixed})`);
    expect(shown(text, 'recent invalidations')).toBe(
      session.recentInvalidations
        .map((record) => `s${record.firstSeq}@${record.position} ~${record.reReadTokens} re-read (${record.cause})`)
        .join(', ') || '(none)',
    );
    expect(tokens(text, 'current surface')).toBe(session.surfaceTokens);
    expect(text).toContain(`persistent domain: ${stats.domain.status}`);
    // The scenario compressed once: the figures are not all zero.
    expect(session.ledger.blockCount).toBe(1);
    expect(session.ledger.shadowedTokens).toBeGreaterThan(0);
  });

  it('stats without --json prints the same text', async () => {
    const json = JSON.parse((await runBuiltCli(['dcp', 'stats', '--session', ID, '--root', root, '--json'])).stdout) as StatsJson;
    const human = await runBuiltCli(['dcp', 'stats', '--session', ID, '--root', root]);
    expect(human.stdout).toBe(`${json.text}\n`);
  });

  it('an unknown sub-command names the CLI command to run, not /dcp help', async () => {
    const outcome = await runBuiltCli(['dcp', 'bogus', '--session', ID, '--root', root]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('Run sessionctx dcp help.');
    expect(outcome.stderr).not.toContain('Use /dcp help');
  });

  it('compress exits 1 with DCP_COMMAND_REFUSED and writes nothing', async () => {
    const before = readFileSync(logPath);
    const outcome = await runBuiltCli(['dcp', 'compress', 'the tests', '--session', ID, '--root', root, '--json']);
    expect(outcome.code).toBe(1);
    expect(JSON.parse(outcome.stdout).error.code).toBe('DCP_COMMAND_REFUSED');
    expect(readFileSync(logPath).equals(before)).toBe(true);
  });
});
