import type { PairingSource } from './host-api.js';

/** `HOST_NOT_ON_SURFACE`: the seq a balance question names is not a current surface node. */
export class NotOnSurfaceError extends Error {
  /** Always `HOST_NOT_ON_SURFACE`. */
  readonly code = 'HOST_NOT_ON_SURFACE' as const;
  /** The seq that was asked about. */
  readonly seq: number;

  constructor(seq: number) {
    super(`seq ${String(seq)} is not on the current surface`);
    this.seq = seq;
    Object.defineProperty(this, 'name', { value: 'NotOnSurfaceError', enumerable: false, configurable: true, writable: true });
  }
}

function positionOf(session: PairingSource, seq: number): number {
  const position = session.surface.positionOf(seq);
  if (position === -1) throw new NotOnSurfaceError(seq);
  return position;
}

/**
 * True when the running count over the nodes strictly before `seq`'s position is 0. Throws
 * `NotOnSurfaceError` (`HOST_NOT_ON_SURFACE: seq <s> is not on the current surface`) when `seq` is not a
 * current node. O(1) amortised.
 */
export function toolPairingBalancedBefore(session: PairingSource, seq: number): boolean {
  return session.toolPairing.countThrough(positionOf(session, seq) - 1) === 0;
}

/**
 * True when the running count over the nodes up to and including `seq`'s position is 0. Throws
 * `NotOnSurfaceError` when `seq` is not a current node. O(1) amortised.
 */
export function toolPairingBalancedAfter(session: PairingSource, seq: number): boolean {
  return session.toolPairing.countThrough(positionOf(session, seq)) === 0;
}
