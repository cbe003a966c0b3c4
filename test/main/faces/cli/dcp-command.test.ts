/**
 * `sessionctx dcp`: one `/dcp` command on a stored session. Reads (stats, show, context, manual status) print the
 * §11 texts and append nothing; a sweep runs its control turn without a model and appends one batch that starts
 * with the resume's `session/end-seed`; the grown log inspects, reloads and folds.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/protocol/events.js';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { classifyCompaction } from '../../../../src/protocol/dcp/crash-classification.js';
import { replayDcpIndex } from '../../../../src/main/engine/dcp/cold-replay.js';
import { Session } from '../../../../src/main/stand-in/host/session.js';
import { deriveModelMessages, foldSurface } from '../../../../src/protocol/surface-fold.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { detectCompression } from '../../../../src/main/engine/store/detect-compression.js';
import { REPO_ROOT } from '../../../support/fixtures.js';

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');
const SCENARIO = join(REPO_ROOT, 'examples', 'compress-scenario.json');
const ID = 'scenario-dcp-1';

interface DcpJson {
  sessionId: string;
  command: string;
  kind: string;
  text: string;
  appendedEvents: number;
}

describe('sessionctx dcp', () => {
  let dir: string;
  let root: string;

  async function dcp(...args: string[]): Promise<DcpJson> {
    const { stdout } = await run(process.execPath, [BIN, 'dcp', ...args, '--session', ID, '--root', root, '--json']);
    return JSON.parse(stdout) as DcpJson;
  }

  async function openStore(): Promise<JsonlSessionStore> {
    return JsonlSessionStore.open({ root, compression: await detectCompression(root) });
  }

  async function storedEvents(): Promise<readonly SessionEvent[]> {
    const store = await openStore();
    return (await store.inspect(asSessionId(ID))).events;
  }

  async function logBytes(): Promise<Buffer> {
    const store = await openStore();
    return readFileSync((await store.locate(asSessionId(ID))) as string);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sessionctx-dcp-'));
    root = join(dir, 'root');
    await run(process.execPath, [BIN, 'script', 'run', SCENARIO, '--root', root]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads stats, show b1, context and manual status without appending anything', async () => {
    const before = await storedEvents();
    const stats = await dcp('stats');
    expect(stats).toMatchObject({ sessionId: ID, command: '/dcp stats', kind: 'success', appendedEvents: 0 });
    expect(stats.text.split('\n')[0]).toBe('DCP statistics (heuristic token estimates):');
    expect(stats.text).toContain('blocks (hist/act): 1/1');
    const show = await dcp('show', 'b1');
    expect(show).toMatchObject({ command: '/dcp show b1', kind: 'success', appendedEvents: 0 });
    expect(show.text).toContain('topic: early cache discussion');
    expect(show.text).toContain('We found the deploy rotates the cache salt; keys rotate weekly.');
    const context = await dcp('context');
    expect(context.text).toContain('active blocks: b1');
    expect(context.text).toContain('manual mode: OFF');
    const manual = await dcp('manual');
    expect(manual).toMatchObject({ kind: 'success', appendedEvents: 0 });
    expect((await storedEvents()).length).toBe(before.length);
  });

  it('prints the human text without --json', async () => {
    const { stdout } = await run(process.execPath, [BIN, 'dcp', 'show', 'b1', '--session', ID, '--root', root]);
    expect(stdout.split('\n')[0]).toBe('Block b1:');
  });

  it('runs a sweep control turn with no model and appends end-seed plus its events as one batch', async () => {
    const before = await storedEvents();
    const bytesBefore = await logBytes();
    const sweep = await dcp('sweep');
    expect(sweep).toMatchObject({ command: '/dcp sweep', kind: 'success' });
    const after = await storedEvents();
    expect(after.length).toBe(before.length + sweep.appendedEvents);
    const bytesAfter = await logBytes();
    expect(bytesAfter.length).toBeGreaterThan(bytesBefore.length);
    expect(bytesAfter.subarray(0, bytesBefore.length).equals(bytesBefore)).toBe(true);
    const added = after.slice(before.length);
    // HOST.md §2.1: the seed's end-seed sits at seq = seed length; persisting it keeps the stored seqs contiguous.
    expect(added[0]?.type).toBe('session/end-seed');
    expect(added.map((event) => event.type)).toContain('command/run');
    expect(added.map((event) => event.type)).toContain('command/done');
    expect(after.every((event, index) => event.seq === index)).toBe(true);
    // A control turn makes no model request.
    expect(added.some((event) => event.type === 'request/header' || event.type === 'assistant/message')).toBe(false);

    // Reload equality (HOST.md §2.1 rule 4): the grown log seeds a session whose messages equal the fold of the log.
    const store = await openStore();
    const reloaded = Session.create(ID, { header: (await store.inspect(asSessionId(ID))).meta, seed: [...after] });
    expect(reloaded.deriveMessages()).toEqual(deriveModelMessages(after, foldSurface(after)));
    const index = replayDcpIndex(after, { manualDefault: false, nudgeMinRatio: 0.6 });
    expect(
      index
        .blocks()
        .filter((block) => block.membership === 'active')
        .map((block) => block.ref),
    ).toEqual(['b1']);
    expect(classifyCompaction(after).class).toBe('committed');
  });

  it('manual on appends its command pair, and a later context shows manual mode ON', async () => {
    const manual = await dcp('manual', 'on');
    expect(manual).toMatchObject({ kind: 'success', text: 'Manual mode is now ON.', appendedEvents: 3 });
    const context = await dcp('context');
    expect(context.text).toContain('manual mode: ON');
  });

  it('a failed command (unknown block) exits 1 and appends nothing', async () => {
    const before = (await storedEvents()).length;
    const failure = await run(process.execPath, [BIN, 'dcp', 'recompress', 'b7', '--session', ID, '--root', root, '--json']).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect((JSON.parse(failure!.stdout) as { error: { code: string } }).error.code).toBe('DCP_BLOCK_NOT_FOUND');
    expect((await storedEvents()).length).toBe(before);
  });

  it('compress cannot act without a model: it fails with DCP_COMMAND_REFUSED and appends nothing', async () => {
    const before = await logBytes();
    const failure = await run(process.execPath, [BIN, 'dcp', 'compress', '--session', ID, '--root', root, '--json']).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect((JSON.parse(failure!.stdout) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'DCP_COMMAND_REFUSED',
      message: expect.stringContaining('sessionctx runs no model'),
    });
    expect((await logBytes()).equals(before)).toBe(true);
  });

  it('needs --session', async () => {
    await expect(run(process.execPath, [BIN, 'dcp', 'stats', '--root', root])).rejects.toMatchObject({ code: 2 });
  });
});
