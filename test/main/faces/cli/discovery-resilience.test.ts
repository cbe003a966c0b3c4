/**
 * Discovery never fails as a whole because one log is corrupt: the session is offered under its
 * id (the definition's fallback for a failed title) and the CLI says so once on stderr.
 */
import { execFile } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import type { CliIo } from '../../../../src/main/faces/cli/cli-io.js';
import { writeTitleFailure } from '../../../../src/main/faces/cli/title-failure-warning.js';
import { REPO_ROOT } from '../../../support/fixtures.js';

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');

function titledLog(title: string): SessionEvent[] {
  return [
    { type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } },
    {
      type: 'user/message',
      seq: 1,
      time: 2,
      data: { content: [{ type: 'text', text: 'hello' }], source: { kind: 'user' }, role: 'user', id: 'u1' },
      surfaceOp: 'append',
    },
    { type: 'session/title', seq: 2, time: 3, data: { title, messageSeqs: [1], source: { kind: 'user' } } },
    { type: 'turn/end', seq: 3, time: 4, data: { turn: 1, reason: { kind: 'completed' } } },
  ];
}

describe('discovery over a root with a corrupt log', () => {
  let root: string;
  let corruptPath: string;
  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'sessionctx-corrupt-'));
    const store = await JsonlSessionStore.open({ root, compression: 'none' });
    await store.create(
      { version: 0, id: asSessionId('healthy'), createdAt: 10, cwd: '/w', delegationDepth: 0 },
      titledLog('Healthy title'),
    );
    corruptPath = await store.create(
      { version: 0, id: asSessionId('broken'), createdAt: 20, cwd: '/w', delegationDepth: 0 },
      titledLog('Broken title'),
    );
    // An unparsable committed line followed by a turn/end: fatal for a full inspection (SESSION-LOG §9.11).
    appendFileSync(corruptPath, '{not json\n{"type":"turn/end","seq":5,"time":6,"data":{"turn":2,"reason":{"kind":"completed"}}}\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('lists the corrupt session under its id and warns once on stderr', async () => {
    const { stdout, stderr } = await run(process.execPath, [BIN, 'sessions', '--root', root, '--query', '', '--json']);
    const { candidates } = JSON.parse(stdout) as { candidates: Array<{ sessionId: string; label: string }> };
    expect(candidates.map((candidate) => [candidate.sessionId, candidate.label])).toEqual([
      ['broken', 'broken'],
      ['healthy', 'Healthy title'],
    ]);
    const warnings = stderr.trim().split('\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('session "broken" is listed by its id');
    // Damaged log bytes are corruption at the query layer, like a validation failure.
    expect(warnings[0]).toContain('SESSION_QUERY_CORRUPT_SESSION');
    expect(warnings[0]).toContain('corrupt session log: unparsable committed event at line 5');
  });

  it('a query that matches only the healthy session still reports the unreadable log it observed', async () => {
    const { stdout, stderr } = await run(process.execPath, [BIN, 'sessions', '--root', root, '--query', 'healthy', '--json']);
    expect((JSON.parse(stdout) as { candidates: Array<{ sessionId: string }> }).candidates.map((candidate) => candidate.sessionId)).toEqual(
      ['healthy'],
    );
    // The corrupt log is observed (a non-empty query reads every title) and reported, but it does not match.
    expect(stderr).toContain('session "broken" is listed by its id');
  });

  it('quotes a long id bounded in the warning (a log id is data: never echoed whole)', async () => {
    // As long as a directory name allows (session-<id> within 255 bytes): more than a quote keeps.
    const longId = `long-${'x'.repeat(230)}`;
    const store = await JsonlSessionStore.open({ root, compression: 'none' });
    const path = await store.create(
      { version: 0, id: asSessionId(longId), createdAt: 30, cwd: '/w', delegationDepth: 0 },
      titledLog('Long'),
    );
    appendFileSync(path, '{not json\n{"type":"turn/end","seq":5,"time":6,"data":{"turn":2,"reason":{"kind":"completed"}}}\n');
    const { stderr } = await run(process.execPath, [BIN, 'sessions', '--root', root, '--query', '', '--json']);
    const line = stderr.split('\n').find((warning) => warning.includes('long-xxx'));
    expect(line).toBeDefined();
    // The quoted id (the log's own message may name its path, which holds the id).
    expect(line?.split(' is listed by its id')[0]).not.toContain(longId);
    expect(line).toContain(`(${longId.length} characters) is listed by its id`);
  });

  it('a 1 MB id makes a warning line of bounded length', () => {
    const err: string[] = [];
    const io: CliIo = {
      stdout: { write: () => true },
      stderr: { write: (text: string) => err.push(text), isTTY: false },
      env: { NO_COLOR: '1' },
      cwd: root,
      readStdin: async () => '',
    };
    const id = 'i'.repeat(1_000_000);
    writeTitleFailure(io, id, Object.assign(new Error('corrupt session log'), { code: 'SESSION_QUERY_CORRUPT_SESSION' }));
    const text = err.join('');
    expect(text.length).toBeLessThan(400);
    expect(text).toContain(
      '(1000000 characters) is listed by its id: its log could not be read (SESSION_QUERY_CORRUPT_SESSION: corrupt session log)',
    );
  });
});
