/**
 * The listing a search sync carries to its worker, packed (issue 17, main-thread stall): `postMessage` clones its
 * message synchronously on the sending thread, and a structured clone of 10,000 `{ sessionId, cwd, createdAt }`
 * objects costs that thread 5–13 ms. Packed, the same listing is two strings and two typed arrays — a clone of four
 * values, each a copy of contiguous memory — built in about a millisecond.
 */
import type { ListedSession, SyncArtifact } from './search-messages.js';

/** A listing packed for a thread hop: the texts concatenated, with the length of each part. */
export interface PackedListing {
  /** Every session id, concatenated. */
  readonly ids: string;
  /** The UTF-16 length of each id. */
  readonly idLengths: Uint32Array;
  /** Every cwd that is not `null`, concatenated. */
  readonly cwds: string;
  /** The UTF-16 length of each cwd, `-1` for a session without one. */
  readonly cwdLengths: Int32Array;
  /** Each session's `createdAt`. */
  readonly createdAt: Float64Array;
}

/**
 * Packs a listing, in one pass over the headers as the store lists them.
 * @param artifacts - the listed sessions, in order.
 * @returns the packed form; {@link unpackListing} gives the same sessions back (with `sessionId` for `id`).
 */
export function packListing(artifacts: readonly ListedSession[]): PackedListing {
  const count = artifacts.length;
  const ids: string[] = new Array<string>(count);
  const cwds: string[] = [];
  const idLengths = new Uint32Array(count);
  const cwdLengths = new Int32Array(count);
  const createdAt = new Float64Array(count);
  for (let index = 0; index < count; index += 1) {
    const artifact = artifacts[index] as ListedSession;
    ids[index] = artifact.id;
    idLengths[index] = artifact.id.length;
    if (artifact.cwd === undefined) cwdLengths[index] = -1;
    else {
      cwds.push(artifact.cwd);
      cwdLengths[index] = artifact.cwd.length;
    }
    createdAt[index] = artifact.createdAt;
  }
  return { ids: ids.join(''), idLengths, cwds: cwds.join(''), cwdLengths, createdAt };
}

/** True when `value` is a well-formed {@link PackedListing}: same counts, lengths that add up to the texts. */
export function isPackedListing(value: unknown): value is PackedListing {
  if (typeof value !== 'object' || value === null) return false;
  const packed = value as Record<string, unknown>;
  const { ids, idLengths, cwds, cwdLengths, createdAt } = packed;
  if (typeof ids !== 'string' || typeof cwds !== 'string') return false;
  if (!(idLengths instanceof Uint32Array) || !(cwdLengths instanceof Int32Array) || !(createdAt instanceof Float64Array)) return false;
  if (cwdLengths.length !== idLengths.length || createdAt.length !== idLengths.length) return false;
  let idTotal = 0;
  let cwdTotal = 0;
  for (let index = 0; index < idLengths.length; index += 1) {
    idTotal += idLengths[index] as number;
    const cwdLength = cwdLengths[index] as number;
    if (cwdLength < -1) return false;
    if (cwdLength > 0) cwdTotal += cwdLength;
    if (!Number.isFinite(createdAt[index])) return false;
  }
  return idTotal === ids.length && cwdTotal === cwds.length;
}

/**
 * The sessions of a packed listing.
 * @param packed - a listing {@link isPackedListing} accepted.
 */
export function unpackListing(packed: PackedListing): SyncArtifact[] {
  const artifacts: SyncArtifact[] = new Array<SyncArtifact>(packed.idLengths.length);
  let idAt = 0;
  let cwdAt = 0;
  for (let index = 0; index < packed.idLengths.length; index += 1) {
    const idLength = packed.idLengths[index] as number;
    const cwdLength = packed.cwdLengths[index] as number;
    const sessionId = packed.ids.slice(idAt, idAt + idLength);
    idAt += idLength;
    let cwd: string | null = null;
    if (cwdLength >= 0) {
      cwd = packed.cwds.slice(cwdAt, cwdAt + cwdLength);
      cwdAt += cwdLength;
    }
    artifacts[index] = { sessionId, cwd, createdAt: packed.createdAt[index] as number };
  }
  return artifacts;
}
