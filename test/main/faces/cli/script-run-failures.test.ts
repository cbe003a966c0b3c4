/**
 * `sessionctx script run` on a run that did not go as scripted: a scripted model with no reply left, a model reply
 * `{error}`, a command step the host does not know, a failed reference preparation. Each exits 1 with
 * `SCENARIO_RUN_FAILED` and lists every failure (code and message) — in `error.details.errors` with `--json`, on
 * standard error without — and the session is still written, as the record of what happened.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/protocol/events.js';
import { formatSessionReferenceMention } from '../../../../src/protocol/uri/mention-formatter.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { REPO_ROOT } from '../../../support/fixtures.js';

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

interface FailureBody {
  error: {
    code: string;
    message: string;
    details: { sessionId: string; path: string; errors: unknown[]; toolResults: unknown[]; commands: unknown[] };
  };
}

describe('sessionctx script run: a run with errors', () => {
  let dir: string;
  let root: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sessionctx-script-failures-'));
    root = join(dir, 'root');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function scriptRun(scenario: unknown, json: boolean): Promise<Outcome> {
    const file = join(dir, 'scenario.json');
    writeFileSync(file, JSON.stringify(scenario));
    return run(process.execPath, [BIN, 'script', 'run', file, '--root', root, ...(json ? ['--json'] : [])]).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
  }

  /** The stored session's turn-end reasons, in order. */
  async function turnEnds(sessionId: string): Promise<unknown[]> {
    const store = await JsonlSessionStore.open({ root, compression: 'zstd' });
    const events = (await store.inspect(asSessionId(sessionId))).events;
    return events.filter((event) => event.type === 'turn/end').map((event) => (event.data as { reason: unknown }).reason);
  }

  it.each([
    [
      'no scripted reply left',
      { model: [{ text: 'only answer' }], steps: [{ prompt: 'one' }, { prompt: 'two' }] },
      [{ kind: 'turn', turn: 2, code: 'UNKNOWN', message: 'scripted model has no reply for request 2' }],
    ],
    [
      'a reply {error}',
      { model: [{ error: 'provider melted' }], steps: [{ prompt: 'one' }] },
      [{ kind: 'turn', turn: 1, code: 'UNKNOWN', message: 'provider melted' }],
    ],
    [
      'an unknown command step',
      { model: [{ text: 'answer' }], steps: [{ prompt: 'one' }, { command: '/nope' }] },
      [{ kind: 'command', step: 1, input: '/nope', code: 'SCENARIO_COMMAND_FAILED', message: 'Unknown command "/nope".' }],
    ],
  ])('%s: exit 1, the failure listed with its code, the session written', async (_name, scenario, errors) => {
    const id = `failing-${_name.replace(/\W+/gu, '-')}`;
    const outcome = await scriptRun({ session: { id }, ...scenario }, true);
    expect(outcome.code).toBe(1);
    const body = JSON.parse(outcome.stdout) as FailureBody;
    expect(body.error.code).toBe('SCENARIO_RUN_FAILED');
    expect(body.error.details.sessionId).toBe(id);
    expect(body.error.details.errors).toEqual(errors);
    expect(body.error.message).toContain(body.error.details.path);
    expect(body.error.message).toContain('record of what happened');
    // The log is kept and says the same about how each turn ended.
    const ends = await turnEnds(id);
    const failedTurns = errors.filter((error) => error.kind === 'turn') as Array<{ turn: number; message: string }>;
    for (const failed of failedTurns)
      expect(ends[failed.turn - 1]).toMatchObject({ kind: 'error', error: { message: failed.message, code: 'UNKNOWN' } });
  });

  it('human output: the report on stdout, every failure on stderr', async () => {
    const outcome = await scriptRun(
      {
        session: { id: 'failing-human' },
        model: [{ text: 'only answer' }],
        steps: [{ prompt: 'one' }, { prompt: 'two' }, { command: '/nope' }],
      },
      false,
    );
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toMatch(/^session failing-human written to /u);
    expect(outcome.stderr).toMatch(
      /^sessionctx: error: scenario session "failing-human" ran with 2 errors; it was written to .* \(SCENARIO_RUN_FAILED\)\n/u,
    );
    expect(outcome.stderr.split('\n').slice(1)).toEqual([
      '  turn 2 failed: UNKNOWN: scripted model has no reply for request 2',
      '  steps[2] (/nope) failed: Unknown command "/nope".',
      '',
    ]);
  });

  it('a failed reference preparation is listed once, with its SESSION_REFERENCE_* code', async () => {
    const mention = formatSessionReferenceMention({ sessionId: 'session-that-does-not-exist', label: 'gone' });
    const outcome = await scriptRun(
      { session: { id: 'failing-reference' }, model: [{ text: 'never asked' }], steps: [{ prompt: `use ${mention}` }] },
      true,
    );
    expect(outcome.code).toBe(1);
    const errors = (JSON.parse(outcome.stdout) as FailureBody).error.details.errors as Array<{
      kind: string;
      code: string;
      message: string;
    }>;
    expect(errors.map((error) => [error.kind, error.code])).toEqual([['turn', 'SESSION_REFERENCE_READ_FAILED']]);
    expect(errors[0]?.message).toMatch(/^failed to read referenced session: /u);
  });

  it('a run that went as scripted still exits 0 with "errors": []', async () => {
    const outcome = await scriptRun({ model: [{ text: 'answer' }], steps: [{ prompt: 'one' }] }, true);
    expect(outcome.code).toBe(0);
    expect((JSON.parse(outcome.stdout) as { errors: unknown[] }).errors).toEqual([]);
  });
});
