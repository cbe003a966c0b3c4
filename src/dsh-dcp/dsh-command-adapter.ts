/**
 * A host-API command as a dsh command (docs/DSH-DCP.md §4): registered with `ctx.commands.register` under its name
 * with its description and argument hint. dsh's registry logs `command/run` / `command/done` itself; the handler
 * receives the text after the name as the stand-in host hands it (the separator dropped, absent when empty), its
 * follow-ups go to the agent's inbox with the command's id stamped into a plugin source (HOST.md §9 rule 4), and its
 * notices reach the human through {@link CommandNotifier} (the host's logger and a plugin event).
 */
import type { CommandContext, CommandDefinition, CommandNotifyLevel } from '../main/host-api/host-api.js';
import type { UserMessage } from '../protocol/user-message.js';
import type { DshCommandDefinition, DshCommandInvocation, DshCommandResult } from './dsh-dcp-host-shapes.js';
import type { DshAgentResolver } from './dsh-tool-adapter.js';

/** Where a command's notices go: the host's logger and the plugin's notice event. */
export type CommandNotifier = (invocation: DshCommandInvocation, name: string, text: string, level: CommandNotifyLevel) => void;

/** The handler's argument: dsh's `rawInput` without its separating whitespace, `undefined` when nothing follows the name. */
export function commandArgs(rawInput: string): string | undefined {
  if (rawInput === '') return undefined;
  const separated = /^\s+([\s\S]*)$/.exec(rawInput);
  return separated === null ? rawInput : separated[1];
}

/** A plugin-sourced message with the command's id in its source (same id, same key order); others as they are. */
export function stampCommandId(message: UserMessage, commandId: string): UserMessage {
  const source = message.source as { readonly kind?: unknown };
  if (source.kind !== 'plugin') return message;
  return Object.freeze({ ...message, source: Object.freeze({ ...message.source, commandId }) }) as UserMessage;
}

/** The dsh registration of `definition`. */
export function dshCommand(definition: CommandDefinition, resolver: DshAgentResolver, notify: CommandNotifier): DshCommandDefinition {
  return {
    name: definition.name,
    description: definition.description ?? `/${definition.name}`,
    ...(definition.hint === undefined ? {} : { input: { hint: definition.hint } }),
    handler: async (invocation): Promise<DshCommandResult> => {
      const { agent, commandId } = invocation;
      await resolver.ready(agent);
      const context: CommandContext = {
        agent: resolver.facade(agent),
        session: resolver.view(agent),
        commandId,
        followup: (message) => agent.followup(stampCommandId(message, commandId)),
        notify: (text, level = 'info') => notify(invocation, definition.name, text, level),
      };
      const result = await definition.handler(context, commandArgs(invocation.rawInput));
      return { kind: result.kind, text: result.text };
    },
  };
}
