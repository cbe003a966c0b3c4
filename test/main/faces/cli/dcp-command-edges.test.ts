/**
 * `sessionctx dcp` at its edges: `stats` on a stored log longer than the ledger's `minEvents` is folded in a
 * `dcpLedger` task on a real worker thread (DCP.md §19 D6) and prints what an in-thread fold prints; plugin
 * warnings reach stderr; a configuration that keeps DCP unmounted fails with `DCP_CONFIG_INVALID` (exit 1).
 */
import { resolveDcpConfig } from '../../../../src/protocol/dcp/config.js';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/protocol/events.js';
import { createUserMessage } from '../../../../src/protocol/user-message.js';
import { DEFAULT_LEDGER_POOL_MIN_EVENTS } from '../../../../src/main/engine/dcp/ledger-service.js';
import { parseStoredDcpCommand, runStoredDcpCommand } from '../../../../src/main/stand-in/compose/stored-dcp-session.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import type { TaskRunner } from '../../../../src/main/engine/pool/task-runner.js';
import { WorkerPool } from '../../../../src/main/engine/pool/worker-pool.js';
import { REPO_ROOT } from '../../../support/fixtures.js';
import { dcpActiveSession } from '../../engine/dcp/dcp-active-session.js';

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');

describe('sessionctx dcp stats on a long log', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-dcp-large-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));

  it("prints the DCP plugin's configuration warnings on stderr", async () => {
    const root = join(dir, 'warn-root');
    const { session } = await dcpActiveSession();
    const store = await JsonlSessionStore.open({ root, compression: 'none', titleIndex: false });
    await store.create(session.header, session.events);
    const config = join(dir, 'sessionctx.config.json');
    writeFileSync(config, JSON.stringify({ dcp: { bogusKey: 1 } }));
    const { stdout, stderr } = await run(process.execPath, [
      BIN,
      'dcp',
      'stats',
      '--session',
      session.id,
      '--root',
      root,
      '--config',
      config,
      '--json',
    ]);
    expect((JSON.parse(stdout) as { kind: string }).kind).toBe('success');
    expect(stderr).toMatch(/^sessionctx: warning: .*bogusKey.*\n$/);
  });

  it('folds through the pool and prints what the in-thread fold prints', { timeout: 60_000 }, async () => {
    const { session } = await dcpActiveSession();
    // Plain turns appended directly (the scripted loop re-checks every request against a cold fold, which is slow
    // on a log this long); the DCP blocks, prunes and markers stay at the start.
    for (let turn = (session.highestTurn() ?? 0) + 1; session.events.length <= DEFAULT_LEDGER_POOL_MIN_EVENTS; turn++) {
      session.append('turn/start', { turn });
      session.append('step/start', { turn, step: 1 });
      session.append(
        'user/message',
        createUserMessage({ source: { kind: 'user' }, content: [{ type: 'text', text: `question ${turn}` }] }),
        { surfaceOp: 'append' },
      );
      session.append(
        'assistant/message',
        {
          turn,
          step: 1,
          message: {
            role: 'assistant',
            content: [{ type: 'text', text: `answer ${turn}` }],
            source: { kind: 'model', provider: 'p', model: 'm' },
            id: `a-${turn}`,
          },
        },
        { surfaceOp: 'append' },
      );
      session.append('step/end', { turn, step: 1 });
      session.append('turn/end', { turn, reason: { kind: 'completed' } });
    }
    expect(session.events.length).toBeGreaterThan(DEFAULT_LEDGER_POOL_MIN_EVENTS);
    const root = join(dir, 'root');
    const store = await JsonlSessionStore.open({ root, compression: 'none', titleIndex: false });
    await store.create(session.header, session.events);

    const { stdout, stderr } = await run(process.execPath, [BIN, 'dcp', 'stats', '--session', session.id, '--root', root, '--json']);
    // No "folded on the main thread" warning: the pool answered.
    expect(stderr).toBe('');
    const viaCli = JSON.parse(stdout) as { kind: string; text: string; appendedEvents: number };
    const inThread = await runStoredDcpCommand({
      store,
      sessionId: asSessionId(session.id),
      command: parseStoredDcpCommand('stats'),
      dcp: resolveDcpConfig({}),
    });
    expect(viaCli.kind).toBe('success');
    expect(viaCli.appendedEvents).toBe(0);
    expect(viaCli.text).toBe(inThread.text);
    // The stored-session path hands the fold of a log this long to its runner, once.
    const pool = new WorkerPool({ size: 1 });
    const kinds: string[] = [];
    const counting: TaskRunner = {
      run: (kind, payload, options) => {
        kinds.push(kind);
        return pool.run(kind, payload, options);
      },
      close: () => pool.close(),
    };
    try {
      const pooled = await runStoredDcpCommand({
        store,
        sessionId: asSessionId(session.id),
        command: parseStoredDcpCommand('stats'),
        dcp: resolveDcpConfig({}),
        fullLogTasks: { runner: counting },
      });
      expect(pooled.text).toBe(inThread.text);
      expect(kinds).toEqual(['dcpLedger']);
    } finally {
      await pool.close();
    }
    expect(viaCli.text).toMatch(/^DCP statistics \(heuristic token estimates\):\nblocks \(hist\/act\): \d+\/\d+\n/);
  });
});

describe('sessionctx dcp with a configuration that keeps DCP unmounted', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-dcp-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));

  it.each([
    ['invalid', { nudge: { minRatio: 0.9, maxRatio: 0.8 } }, /^dcp config: nudge\.minRatio /u],
    ['disabled', { enabled: false }, /^dcp config: enabled is false: DCP is disabled, so there is no \/dcp command to run$/u],
  ])('%s: exits 1 with DCP_CONFIG_INVALID and appends nothing', async (_name, dcpConfig, message) => {
    const root = join(dir, `root-${_name}`);
    const { session } = await dcpActiveSession();
    const store = await JsonlSessionStore.open({ root, compression: 'none', titleIndex: false });
    await store.create(session.header, session.events);
    const config = join(dir, `${_name}.json`);
    writeFileSync(config, JSON.stringify({ dcp: dcpConfig }));
    const failure = await run(process.execPath, [
      BIN,
      'dcp',
      'sweep',
      '--session',
      session.id,
      '--root',
      root,
      '--config',
      config,
      '--json',
    ]).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure?.code).toBe(1);
    const body = JSON.parse(failure!.stdout) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('DCP_CONFIG_INVALID');
    expect(body.error.message).toMatch(message);
    expect((await store.inspect(asSessionId(session.id))).events).toHaveLength(session.events.length);
  });
});
