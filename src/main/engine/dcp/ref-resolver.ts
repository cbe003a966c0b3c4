/**
 * Reference resolution (DCP.md §5): boundary refs to current surface positions, half-open ranges over surface
 * positions (never seq order), transitive aliases, and the hints that name the nearest valid cuts or the latest
 * endRef retention allows. A ref is never replaced or widened; hints only name refs.
 */
import type { ResolveFailure } from '../../../protocol/dcp/range-errors.js';
import {
  endRefError,
  latestAllowedEndRefSuffix,
  nearestCutsSuffix,
  resolveFailureText,
  reversedRangeError,
  startRefError,
} from '../../../protocol/dcp/range-errors.js';
import { nearestValidCuts } from '../../../protocol/dcp/nearest-cuts.js';
import { parseBoundaryRef } from '../../../protocol/dcp/refs.js';
import type { SurfaceReader } from '../../../protocol/surface-view.js';
import type { PairingSource } from '../../host-api/host-api.js';
import { toolPairingBalancedBefore } from '../../host-api/tool-pairing.js';
import type { DcpIndex } from './dcp-index.js';
import { isNativeLike } from '../../../protocol/dcp/replace-class.js';
import { assertNever } from '../../../protocol/assert-never.js';

/** What resolution reads: the index, and the session's surface and pairing count. */
export interface ResolverContext {
  readonly index: DcpIndex;
  readonly session: PairingSource & { readonly surface: SurfaceReader };
  /** `references.hintCount`: nearest cuts per side. */
  readonly hintCount: number;
}

/** A resolved ref, or why it failed with the anchor position its hints scan around (§5.4). */
export type RefResolution =
  | { readonly ok: true; readonly pos: number; readonly seq: number }
  | { readonly ok: false; readonly failure: ResolveFailure; readonly anchor: number };

/** A resolved half-open range `[startPos, endPos)`, or the §5.3 error text with its hint. */
export type RangeResolution =
  | {
      readonly ok: true;
      readonly startPos: number;
      readonly endPos: number;
      readonly startSeq: number;
      readonly endSeq: number;
      /** `surface.slice(startPos, endPos)`: the shadowed nodes in surface order. */
      readonly shadowed: readonly number[];
    }
  | { readonly ok: false; readonly error: string };

/**
 * The current node reached from `seq` by following `shadowedBy`. With `nativeOnly`, the walk stops (returning
 * `undefined`) at the first replace that is not native-like. `undefined` also when the chain ends off the surface.
 */
function followChain(context: ResolverContext, seq: number, nativeOnly: boolean): number | undefined {
  const { surface } = context.session;
  let current = seq;
  for (;;) {
    context.index.counters.nodesVisited += 1;
    if (surface.has(current)) return current;
    const next = surface.shadowedBy(current);
    if (next === undefined) return undefined;
    if (nativeOnly) {
      const kind = context.index.replaceClass(next);
      if (kind === undefined || !isNativeLike(kind)) return undefined;
    }
    current = next;
  }
}

/** The anchor of a failed ref whose node is `seq`: the position of the node its chain reaches, else the end. */
function anchorOf(context: ResolverContext, seq: number): number {
  const reached = followChain(context, seq, false);
  return reached === undefined ? context.session.surface.length : context.session.surface.positionOf(reached);
}

/** `resolve(ref)` (§5.2). O(1) plus the length of the alias or shadow chain it follows. */
export function resolveRef(context: ResolverContext, ref: string): RefResolution {
  const { index, session } = context;
  const { surface } = session;
  const parsed = parseBoundaryRef(ref);
  if (parsed === undefined) return { ok: false, failure: { why: 'not-a-boundary-ref' }, anchor: surface.length };
  if (parsed.kind === 'block') {
    const block = index.block(ref);
    if (block === undefined) return { ok: false, failure: { why: 'unknown-ref' }, anchor: surface.length };
    switch (block.membership) {
      case 'active': {
        const pos = surface.positionOf(block.seq);
        if (pos !== -1) return { ok: true, pos, seq: block.seq };
        return { ok: false, failure: { why: 'absorbed-native' }, anchor: anchorOf(context, block.seq) };
      }
      case 'consumed':
        return { ok: false, failure: { why: 'consumed', successor: block.successor ?? '?' }, anchor: anchorOf(context, block.seq) };
      case 'expanded':
        return { ok: false, failure: { why: 'expanded', successor: block.successor ?? '?' }, anchor: anchorOf(context, block.seq) };
      case 'absorbed-native':
        return { ok: false, failure: { why: 'absorbed-native' }, anchor: anchorOf(context, block.seq) };
      default:
        return assertNever(block.membership, 'unexpected block membership');
    }
  }
  const marker = index.marker(ref);
  if (marker === undefined) return { ok: false, failure: { why: 'unknown-ref' }, anchor: surface.length };
  const direct = surface.positionOf(marker.seq);
  if (direct !== -1) return { ok: true, pos: direct, seq: marker.seq };
  const aliasTarget = index.alias(ref);
  if (aliasTarget !== undefined) {
    const reached = followChain(context, aliasTarget, true);
    if (reached !== undefined) return { ok: true, pos: surface.positionOf(reached), seq: reached };
  }
  const current = followChain(context, marker.seq, false);
  if (current === undefined) return { ok: false, failure: { why: 'shadowed-by-compaction' }, anchor: surface.length };
  const anchor = surface.positionOf(current);
  const blockRef = index.activeBlockRefAt(current);
  if (blockRef !== undefined) return { ok: false, failure: { why: 'inside-block', blockRef }, anchor };
  return { ok: false, failure: { why: 'shadowed-by-compaction' }, anchor };
}

/**
 * The ref of the valid cut at `position` (§5.4): an active boundary — a DCP marker on the surface or an active
 * block's checkpoint — whose cut is pairing-balanced. `undefined` otherwise.
 */
export function validCutRefAt(context: ResolverContext, position: number): string | undefined {
  const { index, session } = context;
  context.index.counters.nodesVisited += 1;
  const seq = session.surface.at(position);
  if (seq === undefined) return undefined;
  const ref = index.markerRefAt(seq) ?? index.activeBlockRefAt(seq);
  if (ref === undefined) return undefined;
  return toolPairingBalancedBefore(session, seq) ? ref : undefined;
}

/** The `; nearest valid cuts: …` / `; no valid cuts nearby` suffix around `anchor` (§5.4). */
export function nearestCutsHint(context: ResolverContext, anchor: number): string {
  const refs = nearestValidCuts(anchor, context.session.surface.length, context.hintCount, (position) => validCutRefAt(context, position));
  return nearestCutsSuffix(refs);
}

/**
 * The retention hint (§5.4): `; latest allowed endRef: <ref>` naming the last valid cut at or before the first
 * surface node whose `turnOf` exceeds `limit`, or `; no older boundary is available`. A failure path: it may walk
 * the surface from its start.
 */
export function latestAllowedEndRefHint(context: ResolverContext, limit: number): string {
  const { index, session } = context;
  const { surface } = session;
  index.counters.surfaceScans += 1;
  let first = surface.length;
  for (let position = 0; position < surface.length; position += 1) {
    index.counters.nodesVisited += 1;
    if (index.turnOf(surface.at(position) as number) > limit) {
      first = position;
      break;
    }
  }
  for (let position = Math.min(first, surface.length - 1); position >= 0; position -= 1) {
    const ref = validCutRefAt(context, position);
    if (ref !== undefined) return latestAllowedEndRefSuffix(ref);
  }
  return latestAllowedEndRefSuffix(undefined);
}

/**
 * `resolveRange(startRef, endRef)` on the current surface (§5.3): start included, the endRef node excluded.
 * `startLabel`/`endLabel` are the refs as the caller wrote them, for the error texts. Every failure carries the
 * nearest-valid-cuts hint.
 */
export function resolveRange(
  context: ResolverContext,
  startRef: string,
  endRef: string,
  startLabel = startRef,
  endLabel = endRef,
): RangeResolution {
  const start = resolveRef(context, startRef);
  if (!start.ok)
    return { ok: false, error: startRefError(startLabel, resolveFailureText(start.failure)) + nearestCutsHint(context, start.anchor) };
  const end = resolveRef(context, endRef);
  if (!end.ok) return { ok: false, error: endRefError(endLabel, resolveFailureText(end.failure)) + nearestCutsHint(context, end.anchor) };
  if (start.pos >= end.pos) return { ok: false, error: reversedRangeError(startLabel, endLabel) + nearestCutsHint(context, start.pos) };
  const shadowed = context.session.surface.slice(start.pos, end.pos);
  context.index.counters.nodesVisited += shadowed.length;
  return { ok: true, startPos: start.pos, endPos: end.pos, startSeq: start.seq, endSeq: end.seq, shadowed };
}
