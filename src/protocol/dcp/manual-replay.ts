/**
 * Manual-mode replay (DCP.md §11.4): the state is the fold of successful `/dcp manual on|off` command pairs over
 * the log, compared after `norm(args)`, which the command handler uses too. There is no private event.
 */
import { DCP_COMMAND_NAME } from './constants.js';

/** `norm(args) = args.trim().toLowerCase().split(/\s+/).join(' ')`. */
export function normalizeCommandArgs(args: string): string {
  return args.trim().toLowerCase().split(/\s+/).join(' ');
}

/**
 * The manual state a `command/run` + `command/done` pair sets, or `undefined` when it changes nothing: the pair must
 * be `name === 'dcp'`, with string `args`, and a done of `kind === 'success'`.
 */
export function manualStateFromCommand(name: unknown, args: unknown, doneKind: unknown): boolean | undefined {
  if (name !== DCP_COMMAND_NAME || typeof args !== 'string' || doneKind !== 'success') return undefined;
  const normalized = normalizeCommandArgs(args);
  if (normalized === 'manual on') return true;
  if (normalized === 'manual off') return false;
  return undefined;
}
