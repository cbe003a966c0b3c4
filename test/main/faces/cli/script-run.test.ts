/**
 * `sessionctx script run`: a scenario runs on the real host, its session is written in dsh's
 * format, and bad scenario files fail with a message naming the offending path.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/protocol/events.js';
import { parseScenario } from '../../../../src/main/stand-in/scenario/scenario.js';
import { ScenarioError } from '../../../../src/main/stand-in/scenario/scenario-error.js';
import { JsonlSessionStore } from '../../../../src/main/engine/store/jsonl-store.js';
import { REPO_ROOT } from '../../../support/fixtures.js';

const run = promisify(execFile);
const BIN = join(REPO_ROOT, 'dist', 'src', 'main', 'faces', 'cli', 'bin.js');

describe('sessionctx script run', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sessionctx-script-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs prompts, tool calls and a failing tool, writes the session and prints surface and tool results', async () => {
    writeFileSync(
      join(dir, 'scenario.json'),
      JSON.stringify({
        session: { id: 'script-1', cwd: '/work/w' },
        tools: [
          { name: 'read_file', results: ['first read', 'second read'] },
          { name: 'explode', error: 'disk on fire' },
        ],
        model: [
          {
            toolCalls: [
              { name: 'read_file', args: { path: 'a' } },
              { name: 'explode', args: {} },
            ],
          },
          { toolCalls: [{ name: 'read_file', args: { path: 'b' } }] },
          { text: 'done' },
          { text: 'second turn answer' },
        ],
        steps: [{ prompt: 'read a and b' }, { prompt: 'and now?' }],
      }),
    );
    const root = join(dir, 'root');
    const { stdout } = await run(process.execPath, [BIN, 'script', 'run', join(dir, 'scenario.json'), '--root', root, '--json']);
    const result = JSON.parse(stdout) as {
      sessionId: string;
      surface: { events: Array<{ type: string; data: { source?: { plugin?: string } } }> };
      toolResults: Array<{ name: string; isError: boolean; text: string }>;
      errors: string[];
    };
    // DCP is mounted: every model step starts with its boundary marker.
    const markers = result.surface.events.filter((event) => event.data.source?.plugin === 'dsh-dcp');
    expect(markers).toHaveLength(4);
    expect(result.sessionId).toBe('script-1');
    expect(result.errors).toEqual([]);
    expect(result.toolResults.map((tool) => [tool.name, tool.isError, tool.text])).toEqual([
      ['read_file', false, 'first read'],
      ['explode', true, 'Error: disk on fire'], // dsh's rendering of a throwing tool (HOST.md §7.2),
      ['read_file', false, 'second read'],
    ]);
    // The written log reloads through the store and folds to the same surface.
    const store = await JsonlSessionStore.open({ root, compression: 'zstd' });
    const inspected = await store.inspect(asSessionId('script-1'));
    expect(inspected.events.filter((event) => event.type === 'turn/end')).toHaveLength(2);
    expect(result.surface.events.filter((event) => event.data.source?.plugin !== 'dsh-dcp').map((event) => event.type)).toEqual([
      'user/message',
      'assistant/message',
      'tool/result',
      'tool/result',
      'assistant/message',
      'tool/result',
      'assistant/message',
      'user/message',
      'assistant/message',
    ]);
  });

  it.each([
    [[], 'a scenario must be a JSON object with session, model and steps'],
    [{ steps: [] }, 'steps must contain at least one step'],
    [{ steps: [{ prompt: 1 }] }, 'steps[0].prompt must be a string'],
    [{ steps: [{ prompt: 'a', command: '/x' }] }, 'steps[0] must have exactly one of prompt, command or steer, got "prompt", "command"'],
    [{ steps: [{ say: 'a' }] }, 'steps[0] has unknown kind "say"; use prompt, command or steer'],
    [{ session: { cwd: 'relative' }, steps: [{ prompt: 'a' }] }, 'session.cwd must be an absolute path, got "relative"'],
    [
      { model: [{ txt: 'a' }], steps: [{ prompt: 'a' }] },
      'model[0] has unknown key "txt"; allowed: text, reasoning, toolCalls, error, usage',
    ],
  ])('rejects %j with a message naming the path', (value, message) => {
    let failure: unknown;
    try {
      parseScenario(value);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ScenarioError);
    expect((failure as ScenarioError).code).toBe('SCENARIO_INVALID');
    expect((failure as Error).message).toBe(message);
  });

  it('a scenario file that is not JSON prints the JSON error and exits 1; a bad verb exits 2', async () => {
    writeFileSync(join(dir, 'bad.json'), '{');
    const failure = await run(process.execPath, [BIN, 'script', 'run', join(dir, 'bad.json'), '--root', dir, '--json']).catch(
      (error: { code: number; stdout: string }) => error,
    );
    expect((failure as { code: number }).code).toBe(1);
    expect(JSON.parse((failure as { stdout: string }).stdout).error.code).toBe('SCENARIO_INVALID');
    const usage = await run(process.execPath, [BIN, 'script', 'walk', 'x.json']).catch((error: { code: number }) => error);
    expect((usage as { code: number }).code).toBe(2);
  });

  it('mounts DCP: the example scenario compresses the first two turns into b1 and the log reloads', async () => {
    const root = join(dir, 'root');
    const { stdout } = await run(process.execPath, [
      BIN,
      'script',
      'run',
      join(REPO_ROOT, 'examples', 'compress-scenario.json'),
      '--root',
      root,
      '--json',
    ]);
    const result = JSON.parse(stdout) as {
      surface: { events: Array<{ type: string; data: { content?: Array<{ text: string }>; source?: { plugin?: string } } }> };
      toolResults: Array<{ name: string; isError: boolean; text: string }>;
    };
    expect(result.toolResults).toHaveLength(1);
    expect(result.toolResults[0]?.isError).toBe(false);
    expect(result.toolResults[0]?.text).toMatch(/^Compressed 6 message\(s\) into b1\./);
    const first = result.surface.events[0];
    expect(first?.data.source?.plugin).toBe('compact');
    expect(first?.data.content?.map((block) => block.text).join('')).toContain('<dcp-message-id>b1</dcp-message-id>');
    const texts = JSON.stringify(result.surface.events);
    expect(texts).not.toContain('Why does the cache miss after deploys?');
    expect(texts).toContain('[stored in b1]');
  });

  it('a bad DCP configuration fails the run with its typed error', async () => {
    writeFileSync(
      join(dir, 'bad-dcp.json'),
      JSON.stringify({ config: { dcp: { compress: { maxRangesPerCall: 0 } } }, steps: [{ prompt: 'x' }] }),
    );
    const failure = await run(process.execPath, [BIN, 'script', 'run', join(dir, 'bad-dcp.json'), '--root', dir, '--json']).catch(
      (error: { code: number; stdout: string }) => error,
    );
    expect((failure as { code: number }).code).toBe(1);
    expect(JSON.parse((failure as { stdout: string }).stdout).error.code).toBe('DCP_CONFIG_INVALID');
  });
});
