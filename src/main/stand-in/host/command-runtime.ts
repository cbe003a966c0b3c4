/**
 * The command runtime (HOST.md §9): slash commands registered by plugins, parsed from human input, logged as a
 * `command/run` / `command/done` pair, and answered with a result that only the human sees. Plugin messages a
 * handler queues carry the live `commandId`, which only this runtime stamps.
 */
import { randomUUID } from 'node:crypto';
import { errorMessage } from '../../../protocol/errors.js';
import type { MessageSource } from '../../../protocol/events.js';
import { isRecord } from '../../../protocol/events.js';
import type { UserMessage } from '../../../protocol/user-message.js';
import { freezeMessage } from '../../../protocol/user-message.js';
import type {
  CommandResult,
  CommandNotifyLevel,
  CommandNotification,
  CommandContext,
  CommandDefinition,
  HostAgent,
} from '../../host-api/host-api.js';

/** A parsed command line: the name and the arguments exactly as typed (absent when empty). */
export interface ParsedCommand {
  readonly name: string;
  readonly args?: string;
}

/** HOST.md §9 rule 2: group 1 is the name, group 2 the arguments. */
export const COMMAND_INPUT_PATTERN = /^\/(\S+)(?:\s+([\s\S]*))?$/;

/** The result for input that is not a command line at all (a host choice; HOST.md leaves the text open). */
export const NOT_A_COMMAND_TEXT = 'Not a command: a command is "/" followed by its name.';

/** The parsed command line, or `undefined` when `input` does not match {@link COMMAND_INPUT_PATTERN}. */
export function parseCommandInput(input: string): ParsedCommand | undefined {
  const match = COMMAND_INPUT_PATTERN.exec(input);
  if (match === null) return undefined;
  const name = match[1] as string;
  const args = match[2];
  return args === undefined || args === '' ? { name } : { name, args };
}

/**
 * What `command/run.args` records for `input` (HOST.md §9 rule 3): everything after the command name, verbatim —
 * the separating whitespace included (`" help"`), as dsh logs it — or `undefined` when nothing follows the name.
 */
export function loggedCommandArgs(input: string, name: string): string | undefined {
  const rest = input.slice(1 + name.length);
  return rest === '' || rest.trim() === '' ? undefined : rest;
}

/** `Unknown command "/<name>".` */
export function unknownCommandText(name: string): string {
  return `Unknown command "/${name}".`;
}

/** `message` with `source.commandId = commandId` when it is plugin-sourced, frozen, id kept; else `message`. */
export function stampCommandId(message: UserMessage, commandId: string): UserMessage {
  const source: unknown = message.source;
  if (!isRecord(source) || source.kind !== 'plugin') return message;
  return freezeMessage({ ...message, source: { ...source, kind: 'plugin', commandId } });
}

/** A handler's return value as a result; anything that is not `{kind:'success'|'error', text: string}` is an error. */
function asCommandResult(value: unknown, name: string): CommandResult {
  if (isRecord(value) && (value['kind'] === 'success' || value['kind'] === 'error') && typeof value['text'] === 'string') {
    return { kind: value['kind'], text: value['text'] };
  }
  return { kind: 'error', text: `command "/${name}" returned an invalid result` };
}

/** The commands of one agent and their execution. */
export class CommandRuntime {
  readonly #agent: HostAgent;
  readonly #notify: (notification: CommandNotification) => void;
  readonly #commands = new Map<string, CommandDefinition>();
  /**
   * Command ids are `cmd-<8 hex digits>-<n>` as dsh writes them (HOST.md §9 rule 3): a random prefix per runtime,
   * so ids of different runtimes over one session do not collide, and a counter from 1.
   */
  readonly #idPrefix = randomUUID().slice(0, 8);
  #issued = 0;
  /** The commands whose `command/done` is not yet appended (see {@link CommandRuntime.settleBeforeTurn}). */
  readonly #finishing = new Set<Promise<CommandResult>>();

  /** `notify` delivers notifications to the human (the agent's `command/notify` listeners). */
  constructor(agent: HostAgent, notify: (notification: CommandNotification) => void) {
    this.#agent = agent;
    this.#notify = notify;
  }

  /** The registered commands in registration order. */
  get definitions(): readonly CommandDefinition[] {
    return [...this.#commands.values()];
  }

  /**
   * Adds a command. A name that is empty or contains a slash or whitespace throws a `TypeError` (the parser
   * could never reach it); a second command with the same name throws.
   */
  register(definition: CommandDefinition): void {
    const name: unknown = definition.name;
    if (typeof name !== 'string' || !/^[^\s/]+$/.test(name)) {
      throw new TypeError(`command name ${JSON.stringify(name)} must be non-empty and contain no "/" or whitespace`);
    }
    if (this.#commands.has(name)) throw new Error(`command "${name}" is already registered`);
    this.#commands.set(name, definition);
  }

  /**
   * Runs one command line (HOST.md §9 rules 2–5). Input that does not parse, or names no registered command,
   * returns an error result and writes nothing. Otherwise `command/run {commandId, name, args?, source}` is
   * appended, the handler awaited (a throw becomes `kind:'error'` with its message), and
   * `command/done {commandId, kind, text}` appended. If the log refuses `command/run` (an append from inside an
   * append notification, a source that is not JSON), the refusal is the error result and the handler never runs.
   */
  async run(input: string, source: MessageSource = { kind: 'user' }): Promise<CommandResult> {
    const parsed = parseCommandInput(input);
    if (parsed === undefined) return { kind: 'error', text: NOT_A_COMMAND_TEXT };
    const definition = this.#commands.get(parsed.name);
    if (definition === undefined) return { kind: 'error', text: unknownCommandText(parsed.name) };
    const { name, args } = parsed;
    this.#issued += 1;
    const commandId = `cmd-${this.#idPrefix}-${this.#issued}`;
    const session = this.#agent.session;
    const logged = loggedCommandArgs(input, name);
    try {
      session.append('command/run', logged === undefined ? { commandId, name, source } : { commandId, name, args: logged, source });
    } catch (error) {
      return { kind: 'error', text: errorMessage(error) };
    }
    const finishing = this.#invoke(definition, this.#context(commandId, name), args).then((result) => {
      session.append('command/done', { commandId, kind: result.kind, text: result.text });
      return result;
    });
    this.#finishing.add(finishing);
    try {
      return await finishing;
    } finally {
      this.#finishing.delete(finishing);
    }
  }

  /**
   * What a turn that is just opening waits for before its first pre-step (HOST.md §9 rule 3): the commands still
   * between `command/run` and `command/done`, so that a command whose followup opened the turn logs its
   * `command/done` right after the turn's `turn/start`, before anything the turn's pre-step writes — the order
   * dsh logs a control turn in. The wait is bounded by one macrotask, so a handler that is still working (or that
   * waits for the turn itself) never holds the turn up longer. `undefined` when no command is running: turns
   * opened by prompts are not delayed at all.
   */
  settleBeforeTurn(): Promise<void> | undefined {
    if (this.#finishing.size === 0) return undefined;
    const pending = Promise.allSettled([...this.#finishing]).then(() => undefined);
    return Promise.race([pending, new Promise<void>((resolve) => setImmediate(resolve))]);
  }

  async #invoke(definition: CommandDefinition, context: CommandContext, args: string | undefined): Promise<CommandResult> {
    try {
      return asCommandResult(await definition.handler(context, args), definition.name);
    } catch (error) {
      return { kind: 'error', text: errorMessage(error) };
    }
  }

  #context(commandId: string, name: string): CommandContext {
    const agent = this.#agent;
    const notify = this.#notify;
    return Object.freeze({
      agent,
      session: agent.session,
      commandId,
      followup(message: UserMessage): void {
        agent.followup(stampCommandId(message, commandId));
      },
      notify(text: string, level: CommandNotifyLevel = 'info'): void {
        notify(Object.freeze({ commandId, name, text, level }));
      },
    });
  }
}
