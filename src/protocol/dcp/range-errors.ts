/**
 * The error texts of range resolution and per-entry validation (DCP.md §5.2–§5.4, §7.5 E9–E15), with their hint
 * suffixes. Hints only name refs; a ref is never replaced or widened.
 */
import { assertNever } from '../assert-never.js';

/** Why a ref did not resolve (§5.2). */
export type ResolveFailure =
  | { readonly why: 'not-a-boundary-ref' }
  | { readonly why: 'unknown-ref' }
  | { readonly why: 'inside-block'; readonly blockRef: string }
  | { readonly why: 'shadowed-by-compaction' }
  | { readonly why: 'consumed'; readonly successor: string }
  | { readonly why: 'expanded'; readonly successor: string }
  | { readonly why: 'absorbed-native' };

/** The §5.2 text of a resolve failure. */
export function resolveFailureText(failure: ResolveFailure): string {
  switch (failure.why) {
    case 'not-a-boundary-ref':
      return 'not a boundary ref';
    case 'unknown-ref':
      return 'unknown ref';
    case 'inside-block':
      return `inside ${failure.blockRef}; use ${failure.blockRef}`;
    case 'shadowed-by-compaction':
      return 'shadowed by compaction';
    case 'consumed':
      return `consumed by ${failure.successor}`;
    case 'expanded':
      return `expanded into ${failure.successor}`;
    case 'absorbed-native':
      return 'absorbed by native compaction';
    default:
      return assertNever(failure, 'unexpected resolve failure');
  }
}

/** `startRef <x> is not an active boundary (<why>)` (§5.3). */
export function startRefError(ref: string, why: string): string {
  return `startRef ${ref} is not an active boundary (${why})`;
}

/** `endRef <x> is not an active boundary (<why>)` (§5.3). */
export function endRefError(ref: string, why: string): string {
  return `endRef ${ref} is not an active boundary (${why})`;
}

/** `startRef <a> must appear before endRef <b>` (§5.3). */
export function reversedRangeError(startRef: string, endRef: string): string {
  return `startRef ${startRef} must appear before endRef ${endRef}`;
}

/** `; nearest valid cuts: r1, r2, …` or `; no valid cuts nearby` (§5.4); `refs` in surface order. */
export function nearestCutsSuffix(refs: readonly string[]): string {
  return refs.length > 0 ? `; nearest valid cuts: ${refs.join(', ')}` : '; no valid cuts nearby';
}

/** `; latest allowed endRef: <ref>` or `; no older boundary is available` (§5.4, retention failures). */
export function latestAllowedEndRefSuffix(ref: string | undefined): string {
  return ref !== undefined ? `; latest allowed endRef: ${ref}` : '; no older boundary is available';
}

/** E10, start side: `range start <a> cuts an open tool call/result pair` (add {@link nearestCutsSuffix}). */
export function pairingStartError(startRef: string): string {
  return `range start ${startRef} cuts an open tool call/result pair`;
}

/** E10, end side: `range end <b> cuts an open tool call/result pair` (add {@link nearestCutsSuffix}). */
export function pairingEndError(endRef: string): string {
  return `range end ${endRef} cuts an open tool call/result pair`;
}

/** E11: `range <a>..<b> enters the last <N> turn(s); choose older content` (add {@link latestAllowedEndRefSuffix}). */
export function retentionError(label: string, retainRecentTurns: number): string {
  return `range ${label} enters the last ${retainRecentTurns} turn(s); choose older content`;
}

/** E12. */
export const CURRENT_CALL_ERROR = 'range includes the current compress call; choose an earlier endRef';

/** E13, instruction or latest snapshot. */
export function hardProtectedError(label: string): string {
  return `range ${label} contains a hard-protected instruction/snapshot node`;
}

/** E13, a checkpoint whose DCP metadata does not decode. */
export function unreadableMetadataError(label: string, code: string): string {
  return `range ${label} contains a checkpoint with unreadable DCP metadata (${code}); it is protected`;
}

/** E14: `range <a>..<b> saves ~<n> tokens, below minNetSavingsTokens=<m>`. */
export function netSavingsError(label: string, saved: number, minNetSavingsTokens: number): string {
  return `range ${label} saves ~${saved} tokens, below minNetSavingsTokens=${minNetSavingsTokens}`;
}

/** E15: `range <a>..<b> could not be committed: <host message>`. */
export function commitError(label: string, hostMessage: string): string {
  return `range ${label} could not be committed: ${hostMessage}`;
}
