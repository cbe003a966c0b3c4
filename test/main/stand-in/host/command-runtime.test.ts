// HOST.md §9 command runtime (§13 item 14): parsing, command/run and command/done, handler context, the
// runtime's commandId stamp on plugin followups, notifications, and results that only the human sees.
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../src/protocol/events.js';
import { createUserMessage } from '../../../../src/protocol/user-message.js';
import { COMMAND_INPUT_PATTERN, parseCommandInput } from '../../../../src/main/stand-in/host/command-runtime.js';
import { createTestHarness } from '../../../../src/main/stand-in/host/test-harness.js';
import { typesOf } from './host-builders.js';
import type { CommandContext, CommandDefinition, Plugin } from '../../../../src/main/host-api/host-api.js';

/** dsh's command id format: `cmd-` + 8 hex digits (random per runtime) + `-` + a counter from 1. */
const COMMAND_ID = /^cmd-[0-9a-f]{8}-[1-9][0-9]*$/;

/** A command that answers `echo <args>` and records what its handler saw. */
function echoCommand(seen: Array<{ context: CommandContext; args: string | undefined }> = []): CommandDefinition {
  return {
    name: 'echo',
    hint: '[text]',
    handler: (context, args) => {
      seen.push({ context, args });
      return { kind: 'success', text: `echo ${args ?? '(nothing)'}` };
    },
  };
}

/** The `command/*` events of a log. */
function commandEvents(events: readonly SessionEvent[]): SessionEvent[] {
  return events.filter((event) => event.type.startsWith('command/'));
}

describe('§13 item 14', () => {
  it('writes command/run then command/done and returns the result to the caller only', async () => {
    const seen: Array<{ context: CommandContext; args: string | undefined }> = [];
    const harness = createTestHarness({ plugins: [{ name: 'p', apply: (context) => context.registerCommand(echoCommand(seen)) }] });
    const result = await harness.runCommand('/echo hello world');
    expect(result).toEqual({ kind: 'success', text: 'echo hello world' });
    const [run, done] = harness.session.events;
    expect(typesOf(harness.session.events)).toEqual(['command/run', 'command/done']);
    const commandId = (run!.data as { commandId: string }).commandId;
    // dsh's command ids: `cmd-<8 hex>-<n>`, counting from 1 (test/fixtures/dcp-dsh, e.g. s9-manual's `cmd-abfa18a4-1`).
    expect(commandId).toMatch(COMMAND_ID);
    expect(commandId.endsWith('-1')).toBe(true);
    // `args` is logged verbatim after the name, the separating space kept (dsh: `" manual on"`); the handler gets
    // the arguments without it.
    expect(run!.data).toEqual({ commandId, name: 'echo', args: ' hello world', source: { kind: 'user' } });
    expect(seen[0]!.args).toBe('hello world');
    expect(Object.keys(run!.data as object)).toEqual(['commandId', 'name', 'args', 'source']);
    expect(done!.data).toEqual({ commandId, kind: 'success', text: 'echo hello world' });
    expect(Object.keys(done!.data as object)).toEqual(['commandId', 'kind', 'text']);
    expect(seen[0]!.context.commandId).toBe(commandId);
    expect(seen[0]!.context.session).toBe(harness.session);
    expect(seen[0]!.context.agent).toBe(harness.agent);
  });

  it('a throwing handler gives kind:error with its message; so does a rejected promise', async () => {
    const harness = createTestHarness({
      plugins: [
        {
          name: 'p',
          apply: (context) => {
            context.registerCommand({
              name: 'boom',
              handler: () => {
                throw new Error('handler exploded');
              },
            });
            context.registerCommand({
              name: 'later',
              handler: async () => {
                throw new Error('async failure');
              },
            });
          },
        },
      ],
    });
    expect(await harness.runCommand('/boom')).toEqual({ kind: 'error', text: 'handler exploded' });
    expect(await harness.runCommand('/later now')).toEqual({ kind: 'error', text: 'async failure' });
    const done = harness.session.events.filter((event) => event.type === 'command/done').map((event) => event.data);
    expect(done).toEqual([
      { commandId: expect.stringMatching(COMMAND_ID), kind: 'error', text: 'handler exploded' },
      { commandId: expect.stringMatching(COMMAND_ID), kind: 'error', text: 'async failure' },
    ]);
  });

  it('the command text and the result never appear in deriveMessages() or in a model request', async () => {
    const harness = createTestHarness({
      script: [{ text: 'reply' }],
      plugins: [{ name: 'p', apply: (context) => context.registerCommand(echoCommand()) }],
    });
    await harness.runCommand('/echo secret-argument');
    harness.prompt('question');
    await harness.runUntilIdle();
    const derived = JSON.stringify(harness.session.deriveMessages());
    expect(derived).not.toContain('secret-argument');
    expect(derived).not.toContain('echo');
    expect(harness.model.requests[0]!.messages.map((message) => message.role)).toEqual(['user']);
    expect(JSON.stringify(harness.model.requests[0]!.messages)).not.toContain('secret-argument');
    expect(harness.session.deriveMessages().map((message) => message.role)).toEqual(['user', 'assistant']);
  });
});

describe('parsing (rule 2)', () => {
  it('uses ^/(\\S+)(?:\\s+([\\s\\S]*))?$ with args exactly as typed and absent when empty', () => {
    expect(COMMAND_INPUT_PATTERN.source).toBe('^\\/(\\S+)(?:\\s+([\\s\\S]*))?$');
    expect(parseCommandInput('/dcp')).toEqual({ name: 'dcp' });
    expect(parseCommandInput('/dcp ')).toEqual({ name: 'dcp' });
    expect(parseCommandInput('/dcp   manual on ')).toEqual({ name: 'dcp', args: 'manual on ' });
    expect(parseCommandInput('/dcp-compress focus\nsecond line')).toEqual({ name: 'dcp-compress', args: 'focus\nsecond line' });
    expect(parseCommandInput('dcp')).toBeUndefined();
    expect(parseCommandInput('/')).toBeUndefined();
    expect(parseCommandInput(' /dcp')).toBeUndefined();
  });

  it('leaves args out of command/run and passes undefined to the handler when empty', async () => {
    const seen: Array<{ context: CommandContext; args: string | undefined }> = [];
    const harness = createTestHarness({ plugins: [{ name: 'p', apply: (context) => context.registerCommand(echoCommand(seen)) }] });
    expect(await harness.runCommand('/echo ')).toEqual({ kind: 'success', text: 'echo (nothing)' });
    expect(seen[0]!.args).toBeUndefined();
    expect(Object.keys(harness.session.events[0]!.data as object)).toEqual(['commandId', 'name', 'source']);
  });

  it('an unknown command returns Unknown command "/<name>". and writes nothing; so does input that is no command', async () => {
    const harness = createTestHarness({ plugins: [{ name: 'p', apply: (context) => context.registerCommand(echoCommand()) }] });
    expect(await harness.runCommand('/nope with args')).toEqual({ kind: 'error', text: 'Unknown command "/nope".' });
    expect(await harness.runCommand('/Echo')).toEqual({ kind: 'error', text: 'Unknown command "/Echo".' });
    expect((await harness.runCommand('echo')).kind).toBe('error');
    expect(harness.session.events).toHaveLength(0);
  });
});

describe('command source and timing (rule 3)', () => {
  it('records the given source; the default is {kind:user}', async () => {
    const harness = createTestHarness({ plugins: [{ name: 'p', apply: (context) => context.registerCommand(echoCommand()) }] });
    await harness.agent.runCommand('/echo a', { kind: 'plugin', plugin: 'scheduler' });
    await harness.agent.runCommand('/echo b');
    const sources = commandEvents(harness.session.events)
      .filter((event) => event.type === 'command/run')
      .map((event) => (event.data as { source: unknown }).source);
    expect(sources).toEqual([{ kind: 'plugin', plugin: 'scheduler' }, { kind: 'user' }]);
  });

  it('may run while a turn is open; both events are log-only', async () => {
    const harness = createTestHarness({ plugins: [{ name: 'p', apply: (context) => context.registerCommand(echoCommand()) }] });
    harness.session.append('turn/start', { turn: 1 });
    expect(await harness.runCommand('/echo mid-turn')).toEqual({ kind: 'success', text: 'echo mid-turn' });
    expect(typesOf(harness.session.events)).toEqual(['turn/start', 'command/run', 'command/done']);
    expect(harness.session.events.every((event) => event.surfaceOp === undefined)).toBe(true);
    expect(harness.session.surface.length).toBe(0);
  });

  it('an invalid handler result is an error result', async () => {
    const harness = createTestHarness({
      plugins: [{ name: 'p', apply: (context) => context.registerCommand({ name: 'bad', handler: () => 'text' as never }) }],
    });
    expect(await harness.runCommand('/bad')).toEqual({ kind: 'error', text: 'command "/bad" returned an invalid result' });
    expect(harness.session.events.at(-1)!.data).toMatchObject({ kind: 'error', text: 'command "/bad" returned an invalid result' });
  });

  it('from inside an append notification: the refusal is the result, nothing is written and the handler never runs', async () => {
    let ran = false;
    const harness = createTestHarness({
      plugins: [
        {
          name: 'p',
          apply: (context) =>
            context.registerCommand({
              name: 'x',
              handler: () => {
                ran = true;
                return { kind: 'success', text: '' };
              },
            }),
        },
      ],
    });
    let pending: Promise<unknown> | undefined;
    harness.session.on('event', () => {
      pending ??= harness.runCommand('/x');
    });
    harness.session.append('session/title', { title: 't', messageSeqs: [], source: { kind: 'user' } });
    expect(await pending).toEqual({ kind: 'error', text: 'session append cannot reenter while another append is being published' });
    expect(ran).toBe(false);
    expect(typesOf(harness.session.events)).toEqual(['session/title']);
  });
});

describe('handler context (rule 4)', () => {
  it('followup stamps source.commandId on plugin messages (keeping the id, overwriting a forged value) and leaves other sources alone', async () => {
    const queued: Array<{ id: string }> = [];
    const harness = createTestHarness({
      script: [{ text: 'ok' }],
      plugins: [
        {
          name: 'p',
          apply: (context) =>
            context.registerCommand({
              name: 'trigger',
              handler: (command) => {
                const plugin = createUserMessage({
                  source: { kind: 'plugin', plugin: 'dsh-dcp' },
                  content: [{ type: 'text', text: 'go' }],
                });
                const forged = createUserMessage({
                  source: { kind: 'plugin', plugin: 'dsh-dcp', commandId: 'forged', extra: 1 },
                  content: [{ type: 'text', text: 'f' }],
                });
                const human = createUserMessage({ source: { kind: 'user' }, content: [{ type: 'text', text: 'h' }] });
                queued.push(plugin, forged, human);
                command.followup(plugin);
                command.followup(forged);
                command.followup(human);
                return { kind: 'success', text: 'queued' };
              },
            }),
        },
      ],
    });
    await harness.runCommand('/trigger');
    await harness.runUntilIdle();
    const commandId = (harness.session.events[0]!.data as { commandId: string }).commandId;
    const logged = harness.session.events
      .filter((event) => event.type === 'user/message')
      .map((event) => event.data as { id: string; source: Record<string, unknown> });
    expect(logged.map((message) => message.id)).toEqual(queued.map((message) => message.id));
    expect(logged[0]!.source).toEqual({ kind: 'plugin', plugin: 'dsh-dcp', commandId });
    expect(Object.keys(logged[0]!.source)).toEqual(['kind', 'plugin', 'commandId']);
    expect(logged[1]!.source).toEqual({ kind: 'plugin', plugin: 'dsh-dcp', commandId, extra: 1 });
    expect(logged[2]!.source).toEqual({ kind: 'user' });
    expect(logged[2]).toBe(queued[2]);
  });

  it('notify reaches the human only, also after the handler returned; nothing is logged', async () => {
    let saved: CommandContext | undefined;
    const harness = createTestHarness({
      plugins: [
        {
          name: 'p',
          apply: (context) =>
            context.registerCommand({
              name: 'dcp',
              handler: (command) => {
                saved = command;
                command.notify('scheduled');
                command.notify('careful', 'warn');
                return { kind: 'success', text: 'ok' };
              },
            }),
        },
      ],
    });
    await harness.runCommand('/dcp sweep');
    saved!.notify('DCP sweep: nothing to prune.');
    const commandId = saved!.commandId;
    expect(harness.notifications).toEqual([
      { commandId, name: 'dcp', text: 'scheduled', level: 'info' },
      { commandId, name: 'dcp', text: 'careful', level: 'warn' },
      { commandId, name: 'dcp', text: 'DCP sweep: nothing to prune.', level: 'info' },
    ]);
    expect(typesOf(harness.session.events)).toEqual(['command/run', 'command/done']);
  });
});

describe('registration (rule 1)', () => {
  it('lists commands with their hints; refuses duplicates and names with a slash or whitespace', () => {
    const harness = createTestHarness({ plugins: [{ name: 'p', apply: (context) => context.registerCommand(echoCommand()) }] });
    expect(harness.agent.commands.map((command) => [command.name, command.hint])).toEqual([['echo', '[text]']]);
    expect(() => harness.agent.registerCommand(echoCommand())).toThrow('command "echo" is already registered');
    expect(() => harness.agent.registerCommand({ name: '/dcp', handler: () => ({ kind: 'success', text: '' }) })).toThrow(TypeError);
    expect(() => harness.agent.registerCommand({ name: 'a b', handler: () => ({ kind: 'success', text: '' }) })).toThrow(TypeError);
    expect(() => harness.agent.registerCommand({ name: '', handler: () => ({ kind: 'success', text: '' }) })).toThrow(
      'command name "" must be non-empty and contain no "/" or whitespace',
    );
  });
});

describe('the command/done of a command that opens a turn (rule 3)', () => {
  /** A plugin with a command queueing a plugin message, and a pre-step that logs a bracket and ends the turn at once. */
  function controlPlugin(handlerDelayMs: number): Plugin {
    return {
      name: 'ctl',
      apply: (context) => {
        context.registerCommand({
          name: 'ctl',
          handler: async (command) => {
            command.followup(createUserMessage({ source: { kind: 'plugin', plugin: 'ctl' }, content: [{ type: 'text', text: 'go' }] }));
            if (handlerDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, handlerDelayMs));
            return { kind: 'success', text: 'scheduled' };
          },
        });
        context.on('agent/pre-step', (payload) => {
          const compactionId = `ctl-${payload.turn}`;
          payload.session.append('compaction/start', { compactionId, turn: payload.turn });
          payload.session.append('compaction/end', { compactionId, turn: payload.turn, error: { message: 'nothing to do' } });
          return { kind: 'enter', messages: [] };
        });
      },
    };
  }

  it("lands right after the turn/start it caused, before anything the pre-step writes (dsh's order, test/fixtures/dcp-dsh/s11)", async () => {
    const harness = createTestHarness({ plugins: [controlPlugin(0)] });
    expect(await harness.runCommand('/ctl')).toEqual({ kind: 'success', text: 'scheduled' });
    await harness.runUntilIdle();
    expect(typesOf(harness.session.events)).toEqual([
      'command/run',
      'turn/start',
      'command/done',
      'compaction/start',
      'compaction/end',
      'turn/end',
    ]);
  });

  it('a handler still working does not hold the turn up: the turn runs and command/done follows when it returns', async () => {
    const harness = createTestHarness({ plugins: [controlPlugin(30)] });
    const result = harness.runCommand('/ctl');
    await harness.runUntilIdle();
    expect(typesOf(harness.session.events)).toEqual(['command/run', 'turn/start', 'compaction/start', 'compaction/end', 'turn/end']);
    expect(await result).toEqual({ kind: 'success', text: 'scheduled' });
    expect(typesOf(harness.session.events).at(-1)).toBe('command/done');
  });
});
