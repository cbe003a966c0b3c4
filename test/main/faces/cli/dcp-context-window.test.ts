/**
 * `sessionctx dcp context` uses the context window the stored log records: dsh writes `request/context`
 * `{provider, model, contextWindow}` after each request header, and `script run` records a scenario's
 * `contextWindow` the same way (and runs the live session with it, so pressure is known during the run too). A log
 * that records no window keeps `pressure n/a (no context window)`.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/protocol/events.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { RAW_ROOT, REPO_ROOT } from '../../../support/fixtures.js';

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');
const NO_WINDOW = 'pressure n/a (no context window)';

async function contextText(root: string, sessionId: string): Promise<string> {
  const { stdout } = await run(process.execPath, [BIN, 'dcp', 'context', '--session', sessionId, '--root', root, '--json']);
  return (JSON.parse(stdout) as { text: string }).text;
}

/** The pressure line of a context block. */
function pressureLine(text: string): string | undefined {
  return text.split('\n').find((line) => line.startsWith('pressure '));
}

/**
 * The window a fixture log records for the model of its latest request header, read from the raw JSONL lines
 * (header and context events are plain rows), or `undefined` when it records none for that model.
 */
function recordedWindow(rawPath: string): number | undefined {
  let model: string | undefined;
  const windows = new Map<string, number>();
  for (const line of readFileSync(rawPath, 'utf8').split('\n')) {
    if (!line.includes('"type":"request/')) continue;
    const row = JSON.parse(line) as {
      type: string;
      data: { header?: { config?: { provider: string; model: string } }; provider?: string; model?: string; contextWindow?: number };
    };
    if (row.type === 'request/header') model = JSON.stringify([row.data.header?.config?.provider, row.data.header?.config?.model]);
    if (row.type === 'request/context') windows.set(JSON.stringify([row.data.provider, row.data.model]), row.data.contextWindow as number);
  }
  return model === undefined ? undefined : windows.get(model);
}

/** The sessions of a copied raw root: `<project>/<session>/session.jsonl`, directories only. */
function sessionsOf(root: string): Array<{ readonly id: string; readonly rawPath: string }> {
  const out: Array<{ readonly id: string; readonly rawPath: string }> = [];
  for (const project of readdirSync(root, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
    for (const session of readdirSync(join(root, project.name), { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
      out.push({ id: session.name, rawPath: join(root, project.name, session.name, 'session.jsonl') });
    }
  }
  return out;
}

/** Copies the fixture root, leaving out a title index another test run may have written beside it. */
function copyFixtures(target: string): void {
  cpSync(RAW_ROOT, target, { recursive: true, filter: (source) => !source.endsWith('.sessionctx-title-index.v1') });
}

describe('sessionctx dcp context: the recorded context window', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctx-dcp-window-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("dsh logs: the window dsh recorded in request/context for the latest header's model", { timeout: 60_000 }, async () => {
    const root = join(dir, 'dsh');
    copyFixtures(root);
    const sessions = sessionsOf(root);
    expect(sessions.length).toBeGreaterThanOrEqual(10);
    for (const session of sessions) {
      const window = recordedWindow(session.rawPath);
      expect(window).toBeDefined();
      expect(pressureLine(await contextText(root, session.id))).toMatch(new RegExp(`^pressure ~\\d+% of ${String(window)}$`, 'u'));
    }
    // Windows differ between models, so a single constant could not pass the loop above.
    expect(new Set(sessions.map((session) => recordedWindow(session.rawPath)))).toEqual(new Set([24000, 128000]));
  });

  it('a scenario without contextWindow records none: n/a', async () => {
    const root = join(dir, 'plain');
    await run(process.execPath, [BIN, 'script', 'run', join(REPO_ROOT, 'examples', 'compress-scenario.json'), '--root', root]);
    expect(pressureLine(await contextText(root, 'scenario-dcp-1'))).toBe(NO_WINDOW);
  });

  it("a scenario's contextWindow is the live session's window and is recorded after each request header", async () => {
    const root = join(dir, 'windowed');
    const file = join(dir, 'windowed.json');
    writeFileSync(
      file,
      JSON.stringify({
        session: { id: 'windowed-1' },
        contextWindow: 50000,
        model: [{ text: 'first answer' }, { text: 'second answer' }],
        steps: [{ prompt: 'first question' }, { command: '/dcp context' }, { prompt: 'second question' }],
      }),
    );
    const { stdout } = await run(process.execPath, [BIN, 'script', 'run', file, '--root', root, '--json']);
    const report = JSON.parse(stdout) as { commands: Array<{ input: string; text: string }> };
    // During the run (issue 13 item 7): the live session knows the scenario's window.
    expect(pressureLine(report.commands[0]?.text ?? '')).toMatch(/^pressure ~\d+% of 50000$/u);
    const store = await JsonlSessionStore.open({ root, compression: 'zstd' });
    const events = (await store.inspect(asSessionId('windowed-1'))).events;
    const headers = events.filter((event) => event.type === 'request/header');
    expect(headers.length).toBeGreaterThanOrEqual(1);
    for (const header of headers) {
      const next = events[header.seq + 1];
      expect(next?.type).toBe('request/context');
      expect(next?.data).toEqual({ provider: 'scripted', model: 'scripted-1', contextWindow: 50000 });
    }
    expect(events.filter((event) => event.type === 'request/context')).toHaveLength(headers.length);
    // After it: the stored log's record gives the reader the same window.
    expect(pressureLine(await contextText(root, 'windowed-1'))).toMatch(/^pressure ~\d+% of 50000$/u);
  });
});
