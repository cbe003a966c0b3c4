/**
 * Boundary refs (DCP.md §4.3, §5.1): marker refs `mNNNN` (at least four digits, no upper limit) and block refs
 * `bN`. Ref numbers are never compared for position; they only allocate fresh names.
 */
import { BLOCK_REF_RE, MARKER_REF_MIN_DIGITS, MARKER_REF_RE } from './constants.js';

/** A parsed boundary ref. */
export type BoundaryRef =
  | { readonly kind: 'marker'; readonly ref: string; readonly number: number }
  | { readonly kind: 'block'; readonly ref: string; readonly number: number };

/** The ref of marker number `n` (a positive safe integer): `m` + `n` zero-padded to at least 4 digits. */
export function formatMarkerRef(n: number): string {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`marker number must be a positive safe integer, got ${String(n)}`);
  return `m${String(n).padStart(MARKER_REF_MIN_DIGITS, '0')}`;
}

/** The ref of block number `n` (a positive safe integer): `b<n>`. */
export function formatBlockRef(n: number): string {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`block number must be a positive safe integer, got ${String(n)}`);
  return `b${n}`;
}

/**
 * The number of a marker ref (`^m\d+$`), or `undefined` for anything else. A number beyond the safe integer
 * range is `undefined` too: no real log gets there, and an inexact number could collide with a real one.
 */
export function markerNumber(ref: string): number | undefined {
  if (!MARKER_REF_RE.test(ref)) return undefined;
  const n = Number(ref.slice(1));
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The number of a block ref (`^b[1-9]\d*$`), or `undefined` for anything else (unsafe numbers included). */
export function blockNumber(ref: string): number | undefined {
  if (!BLOCK_REF_RE.test(ref)) return undefined;
  const n = Number(ref.slice(1));
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Parses a boundary ref; `undefined` means `not a boundary ref` (§5.2 rule 1). */
export function parseBoundaryRef(ref: string): BoundaryRef | undefined {
  const marker = markerNumber(ref);
  if (marker !== undefined) return { kind: 'marker', ref, number: marker };
  const block = blockNumber(ref);
  if (block !== undefined) return { kind: 'block', ref, number: block };
  return undefined;
}
