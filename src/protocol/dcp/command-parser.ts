/**
 * Parsing `/dcp` and `/dcp-compress` arguments (DCP.md §11.1, §11.2). Tokens are `args.trim().split(/\s+/)`; the
 * sub-command is the first token lowercased and defaults to `help`; block refs and flags are lowercased. Manual
 * sub-commands are decided on `norm(args)`, the function the replay uses (§11.4), so what the handler reports is
 * what a reload replays.
 */
import { BLOCK_REF_RE } from './constants.js';
import { DECOMPRESS_USAGE_TEXT, RECOMPRESS_USAGE_TEXT, SHOW_USAGE_TEXT, unknownSubcommandText } from './command-texts.js';
import { normalizeCommandArgs } from './manual-replay.js';

/** A parsed `/dcp` command. */
export type DcpCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'context' }
  | { readonly kind: 'stats' }
  | { readonly kind: 'manual-set'; readonly on: boolean }
  | { readonly kind: 'manual-status' }
  | { readonly kind: 'manual-usage' }
  | { readonly kind: 'compress'; readonly focus?: string }
  | { readonly kind: 'sweep' }
  | { readonly kind: 'show'; readonly blockRef: string; readonly raw: boolean }
  | { readonly kind: 'decompress'; readonly blockRef: string; readonly intoContext: boolean }
  | { readonly kind: 'recompress'; readonly blockRef: string }
  | { readonly kind: 'usage-error'; readonly text: string }
  | { readonly kind: 'unknown-subcommand'; readonly text: string };

/** `args` without its first token, trimmed; original case and inner spacing kept. */
function restAfterFirstToken(args: string): string {
  return args.trim().replace(/^\S+/, '').trim();
}

/** A block-ref command: `<bN>` followed only by allowed flags (each may repeat). */
function parseRefAndFlags(tokens: readonly string[], allowedFlag: string | undefined): { blockRef: string; flag: boolean } | undefined {
  const blockRef = tokens[1]?.toLowerCase();
  if (blockRef === undefined || !BLOCK_REF_RE.test(blockRef)) return undefined;
  let flag = false;
  for (const token of tokens.slice(2)) {
    if (allowedFlag === undefined || token.toLowerCase() !== allowedFlag) return undefined;
    flag = true;
  }
  return { blockRef, flag };
}

function compressCommand(focus: string): DcpCommand {
  return focus === '' ? { kind: 'compress' } : { kind: 'compress', focus };
}

/** Parses the arguments of `/dcp`. */
export function parseDcpCommand(args: string): DcpCommand {
  const tokens = args.trim().split(/\s+/);
  const subcommand = (tokens[0] ?? '').toLowerCase();
  switch (subcommand) {
    case '':
    case 'help':
      return { kind: 'help' };
    case 'context':
      return { kind: 'context' };
    case 'stats':
      return { kind: 'stats' };
    case 'sweep':
      return { kind: 'sweep' };
    case 'manual': {
      const normalized = normalizeCommandArgs(args);
      if (normalized === 'manual on') return { kind: 'manual-set', on: true };
      if (normalized === 'manual off') return { kind: 'manual-set', on: false };
      // A bare `/dcp manual` prints the usage line with the current state, as dsh-dcp does (the seed names no text).
      if (normalized === 'manual status') return { kind: 'manual-status' };
      return { kind: 'manual-usage' };
    }
    case 'compress':
      return compressCommand(restAfterFirstToken(args));
    case 'show': {
      const parsed = parseRefAndFlags(tokens, '--raw');
      return parsed === undefined
        ? { kind: 'usage-error', text: SHOW_USAGE_TEXT }
        : { kind: 'show', blockRef: parsed.blockRef, raw: parsed.flag };
    }
    case 'decompress': {
      const parsed = parseRefAndFlags(tokens, '--into-context');
      return parsed === undefined
        ? { kind: 'usage-error', text: DECOMPRESS_USAGE_TEXT }
        : { kind: 'decompress', blockRef: parsed.blockRef, intoContext: parsed.flag };
    }
    case 'recompress': {
      const parsed = parseRefAndFlags(tokens, undefined);
      return parsed === undefined
        ? { kind: 'usage-error', text: RECOMPRESS_USAGE_TEXT }
        : { kind: 'recompress', blockRef: parsed.blockRef };
    }
    default:
      return { kind: 'unknown-subcommand', text: unknownSubcommandText(subcommand) };
  }
}

/** Parses the arguments of `/dcp-compress [focus]`, which behaves exactly like `/dcp compress [focus]`. */
export function parseDcpCompressCommand(args: string): DcpCommand {
  return compressCommand(args.trim());
}
