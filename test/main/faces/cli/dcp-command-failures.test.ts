/**
 * `sessionctx dcp` tells the truth about a command that fails: arguments that are no `/dcp` command are a usage
 * error (`CLI_USAGE`, exit 2) naming the sub-commands; a block the session does not have is `DCP_BLOCK_NOT_FOUND`
 * and a refusal `DCP_COMMAND_REFUSED` (exit 1). With `--json` each prints `{"error":{"code","message"}}` and
 * nothing else; the stored log is not touched. A control turn that ran says what it did.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/protocol/events.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { REPO_ROOT } from '../../../support/fixtures.js';

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');
const SCENARIO = join(REPO_ROOT, 'examples', 'compress-scenario.json');
const ID = 'scenario-dcp-1';
/** The sub-commands of DCP.md §11.1. */
const SUBCOMMANDS = ['help', 'context', 'stats', 'manual', 'compress', 'sweep', 'show', 'decompress', 'recompress'];

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function cli(args: readonly string[]): Promise<Outcome> {
  return run(process.execPath, [BIN, ...args]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describe('sessionctx dcp failures', () => {
  let dir: string;
  let root: string;
  let logPath: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sessionctx-dcp-failures-'));
    root = join(dir, 'root');
    await run(process.execPath, [BIN, 'script', 'run', SCENARIO, '--root', root]);
    const store = await JsonlSessionStore.open({ root, compression: 'zstd' });
    logPath = (await store.locate(asSessionId(ID))) as string;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs `dcp args… --session ID --root root [extra…]` and checks the log's bytes did not change. */
  async function dcpLeavingLogAlone(args: readonly string[], extra: readonly string[] = ['--json']): Promise<Outcome> {
    const before = readFileSync(logPath);
    const outcome = await cli(['dcp', ...args, '--session', ID, '--root', root, ...extra]);
    expect(readFileSync(logPath).equals(before)).toBe(true);
    return outcome;
  }

  /** The one JSON error document on stdout. */
  function jsonError(outcome: Outcome): { code: string; message: string } {
    const body = JSON.parse(outcome.stdout) as { error: { code: string; message: string } };
    expect(Object.keys(body)).toEqual(['error']);
    expect(Object.keys(body.error)).toEqual(['code', 'message']);
    return body.error;
  }

  it('an unknown sub-command is a usage error that names every sub-command', async () => {
    const outcome = await dcpLeavingLogAlone(['bogus']);
    expect(outcome.code).toBe(2);
    const error = jsonError(outcome);
    expect(error.code).toBe('CLI_USAGE');
    // In the CLI's words: the command to run is `sessionctx dcp help`, not the host's `/dcp help`.
    expect(error.message).toMatch(/^Unknown dcp subcommand "bogus"\. Run sessionctx dcp help\./u);
    expect(error.message).not.toContain('/dcp');
    for (const name of SUBCOMMANDS) expect(error.message).toContain(name);
    const human = await dcpLeavingLogAlone(['bogus'], []);
    expect(human.code).toBe(2);
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^sessionctx: error: Unknown dcp subcommand "bogus"\. Run sessionctx dcp help\./u);
  });

  it.each([
    [['show'], 'Usage: sessionctx dcp show <bN> [--raw]'],
    [['show', 'x1'], 'Usage: sessionctx dcp show <bN> [--raw]'],
    [['show', 'b1', '--into-context'], 'Usage: sessionctx dcp show <bN> [--raw]'],
    [['decompress'], 'Usage: sessionctx dcp decompress <bN> [--into-context]'],
    [['decompress', 'b1', '--raw'], 'Usage: sessionctx dcp decompress <bN> [--into-context]'],
    [['recompress'], 'Usage: sessionctx dcp recompress <bN>'],
    [['recompress', 'b1', '--raw'], 'Usage: sessionctx dcp recompress <bN>'],
    [['manual', 'bogus'], 'Usage: sessionctx dcp manual [on|off|status]. Current: OFF.'],
  ])("%j is a usage error (exit 2) with the command's usage text in the CLI's words", async (args, usage) => {
    const outcome = await dcpLeavingLogAlone(args);
    expect(outcome.code).toBe(2);
    const error = jsonError(outcome);
    expect(error.code).toBe('CLI_USAGE');
    expect(error.message.startsWith(usage)).toBe(true);
  });

  it.each([
    [['show', 'b9']],
    [['show', 'b9', '--raw']],
    [['decompress', 'b9']],
    [['decompress', 'b9', '--into-context']],
    [['recompress', 'b9']],
  ])('%j on a block the session does not have fails with DCP_BLOCK_NOT_FOUND (exit 1)', async (args) => {
    const outcome = await dcpLeavingLogAlone(args);
    expect(outcome.code).toBe(1);
    expect(jsonError(outcome)).toEqual({ code: 'DCP_BLOCK_NOT_FOUND', message: 'Compression b9 does not exist.' });
    const human = await dcpLeavingLogAlone(args, []);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toBe('sessionctx: error: Compression b9 does not exist. (DCP_BLOCK_NOT_FOUND)\n');
  });

  it('a refused recompression fails with DCP_COMMAND_REFUSED and the §12.3 reason', async () => {
    const outcome = await dcpLeavingLogAlone(['recompress', 'b1']);
    expect(outcome.code).toBe(1);
    expect(jsonError(outcome)).toEqual({ code: 'DCP_COMMAND_REFUSED', message: 'b1 has no active semantic expansion to recompress' });
  });

  it('compress with compression disabled fails with DCP_COMMAND_REFUSED, naming the configuration', async () => {
    const config = join(dir, 'no-compress.json');
    writeFileSync(config, JSON.stringify({ dcp: { compress: { enabled: false } } }));
    const outcome = await dcpLeavingLogAlone(['compress'], ['--config', config, '--json']);
    expect(outcome.code).toBe(1);
    expect(jsonError(outcome)).toEqual({ code: 'DCP_COMMAND_REFUSED', message: 'Compression is disabled by configuration.' });
  });

  it('a sweep prints what its control turn did, not only that it was scheduled', async () => {
    const human = await cli(['dcp', 'sweep', '--session', ID, '--root', root]);
    expect(human.code).toBe(0);
    expect(human.stdout.split('\n').slice(0, 2)).toEqual([
      'Sweep scheduled in a control turn (no model request).',
      'DCP sweep: nothing to prune.',
    ]);
    const json = await cli(['dcp', 'sweep', '--session', ID, '--root', root, '--json']);
    expect((JSON.parse(json.stdout) as { notices: string[] }).notices).toEqual(['DCP sweep: nothing to prune.']);
  });
});
