/**
 * The host's indexed view of the current surface (HOST.md §2.4): node order plus seq → position and
 * seq → replacing-seq lookups, so that positional questions cost O(1) instead of a scan. Nodes are kept in
 * chunks of bounded size, so that a replace costs what its range costs (DCP.md §19 D3), not what the surface
 * costs.
 */

/** Read-only access to the current surface (HOST.md §2.4). Positions are indexes in surface order. */
export interface SurfaceReader {
  /** The number of current surface nodes. O(1). */
  readonly length: number;
  /** Increased by one by every replace. O(1). */
  readonly replaceGeneration: number;
  /** The seq at position `position`, or `undefined` outside `[0, length)`. O(1) for neighbouring positions, else O(log chunks). */
  at(position: number): number | undefined;
  /** True when `seq` is a current surface node. O(1). */
  has(seq: number): boolean;
  /** The position of `seq`, or `-1` when it is not a current node. O(1). */
  positionOf(seq: number): number;
  /** The seqs at positions `[start, end)` (clamped to the surface). O(end − start). */
  slice(start: number, end: number): number[];
  /** The seq of the event that removed `seq` from the surface, or `undefined`. O(1). */
  shadowedBy(seq: number): number | undefined;
  /** The nodes `replacingSeq` removed, in their former surface order (empty for any other seq). O(k). */
  shadowedOf(replacingSeq: number): readonly number[];
}

/** What a surface change did, as published to append listeners (HOST.md §2.3). */
export type SurfaceDelta =
  | { readonly kind: 'append'; readonly position: number }
  | { readonly kind: 'replace'; readonly position: number; readonly shadowed: readonly number[] };

const NO_SHADOWED: readonly number[] = Object.freeze([]);

/** True for an integer usable as an array index. */
function isIndex(value: number): boolean {
  return Number.isInteger(value) && value >= 0;
}

/** The default largest number of nodes in one chunk. */
export const DEFAULT_SURFACE_CHUNK_NODES = 512;

/** A run of consecutive surface nodes. */
interface Chunk {
  nodes: number[];
  /** The surface position of `nodes[0]`. */
  start: number;
}

/**
 * The mutable surface index behind {@link SurfaceReader}. Only the session changes it, after an event passed
 * validation. Nodes live in chunks of at most `chunkNodes` nodes; each seq knows its chunk and its index there, and
 * each chunk its start position, so `positionOf` is O(1).
 *
 * Costs: an append is O(1); a single-node replace writes one slot; a k-node replace is O(k + chunkNodes + chunks)
 * (the two edge chunks are rejoined, the chunks in between dropped, later chunk starts moved). With 512-node chunks
 * a 10-node replace on an 84,000-node surface touches about a thousand slots instead of the whole surface.
 */
export class SurfaceView implements SurfaceReader {
  readonly #chunkNodes: number;
  /** The chunks in surface order; never empty ones, except none at all for an empty surface. */
  #chunks: Chunk[] = [];
  #length = 0;
  /** The chunk of each current node by seq; `undefined` for a seq that is not a current node. */
  readonly #chunkOf: Array<Chunk | undefined> = [];
  /** The index inside its chunk of each current node by seq. */
  #indexOf = new Int32Array(1024);
  /** `replacingSeq + 1` by seq; 0 means "never shadowed". */
  #shadowedByPlusOne = new Int32Array(1024);
  readonly #shadowedOf = new Map<number, readonly number[]>();
  #replaceGeneration = 0;
  /** The rank of the chunk the last positional lookup found: scans in surface order then cost O(1) per step. */
  #lastRank = 0;

  /**
   * `chunkNodes` (default {@link DEFAULT_SURFACE_CHUNK_NODES}) bounds a chunk; small values exist for tests.
   *
   * @throws RangeError when `chunkNodes` is not a safe integer ≥ 2.
   */
  constructor(chunkNodes = DEFAULT_SURFACE_CHUNK_NODES) {
    if (!Number.isSafeInteger(chunkNodes) || chunkNodes < 2)
      throw new RangeError(`surface view: chunkNodes must be a safe integer >= 2, got ${chunkNodes}`);
    this.#chunkNodes = chunkNodes;
  }

  get length(): number {
    return this.#length;
  }

  get replaceGeneration(): number {
    return this.#replaceGeneration;
  }

  at(position: number): number | undefined {
    if (!isIndex(position) || position >= this.#length) return undefined;
    const chunk = this.#chunks[this.#rankAt(position)] as Chunk;
    return chunk.nodes[position - chunk.start];
  }

  has(seq: number): boolean {
    return this.positionOf(seq) !== -1;
  }

  positionOf(seq: number): number {
    if (!isIndex(seq)) return -1;
    const chunk = this.#chunkOf[seq];
    return chunk === undefined ? -1 : chunk.start + (this.#indexOf[seq] as number);
  }

  slice(start: number, end: number): number[] {
    const from = Math.max(0, start);
    const to = Math.min(this.#length, Math.max(0, end));
    const out: number[] = [];
    if (from >= to) return out;
    for (let rank = this.#rankAt(from); rank < this.#chunks.length && out.length < to - from; rank++) {
      const chunk = this.#chunks[rank] as Chunk;
      const first = Math.max(0, from - chunk.start);
      const last = Math.min(chunk.nodes.length, to - chunk.start);
      for (let index = first; index < last; index++) out.push(chunk.nodes[index] as number);
    }
    return out;
  }

  shadowedBy(seq: number): number | undefined {
    if (!isIndex(seq) || seq >= this.#shadowedByPlusOne.length) return undefined;
    const value = this.#shadowedByPlusOne[seq] as number;
    return value === 0 ? undefined : value - 1;
  }

  shadowedOf(replacingSeq: number): readonly number[] {
    return this.#shadowedOf.get(replacingSeq) ?? NO_SHADOWED;
  }

  /** Adds `seq` as the last node. */
  append(seq: number): SurfaceDelta {
    this.#reserve(seq);
    const position = this.#length;
    let last = this.#chunks.at(-1);
    if (last === undefined || last.nodes.length >= this.#chunkNodes) {
      last = { nodes: [], start: position };
      this.#chunks.push(last);
    }
    this.#chunkOf[seq] = last;
    this.#indexOf[seq] = last.nodes.length;
    last.nodes.push(seq);
    this.#length += 1;
    return { kind: 'append', position };
  }

  /**
   * Replaces the nodes at positions `[startPosition, endPosition]` (inclusive) by `seq`. The caller has
   * validated the range (SESSION-LOG.md §5.2 rule 4).
   */
  replace(startPosition: number, endPosition: number, seq: number): SurfaceDelta {
    this.#reserve(seq);
    const shadowed = Object.freeze(this.slice(startPosition, endPosition + 1));
    for (const removed of shadowed) {
      this.#chunkOf[removed] = undefined;
      this.#shadowedByPlusOne[removed] = seq + 1;
    }
    const firstRank = this.#rankAt(startPosition);
    const first = this.#chunks[firstRank] as Chunk;
    const startIndex = startPosition - first.start;
    if (shadowed.length === 1) {
      first.nodes[startIndex] = seq;
      this.#chunkOf[seq] = first;
      this.#indexOf[seq] = startIndex;
    } else {
      const lastRank = this.#rankAt(endPosition);
      const last = this.#chunks[lastRank] as Chunk;
      // The first chunk keeps its nodes before the range, takes `seq` and the last chunk's nodes after the range.
      first.nodes = [...first.nodes.slice(0, startIndex), seq, ...last.nodes.slice(endPosition - last.start + 1)];
      const replacement = this.#rebalanced(first);
      this.#chunks.splice(firstRank, lastRank - firstRank + 1, ...replacement);
      for (const chunk of replacement) this.#reindex(chunk);
      this.#length -= shadowed.length - 1;
      this.#restart(firstRank);
    }
    this.#shadowedOf.set(seq, shadowed);
    this.#replaceGeneration += 1;
    return { kind: 'replace', position: startPosition, shadowed };
  }

  /**
   * `chunk` split in halves while it is over the bound, or merged with its successor when both are small, so the
   * number of chunks stays about `length / chunkNodes`.
   */
  #rebalanced(chunk: Chunk): Chunk[] {
    const limit = this.#chunkNodes;
    if (chunk.nodes.length > limit) {
      const half = Math.ceil(chunk.nodes.length / 2);
      return [
        { nodes: chunk.nodes.slice(0, half), start: 0 },
        { nodes: chunk.nodes.slice(half), start: 0 },
      ];
    }
    return [chunk];
  }

  /** Points every node of `chunk` at it, with its index. O(chunk size). */
  #reindex(chunk: Chunk): void {
    chunk.nodes.forEach((node, index) => {
      this.#chunkOf[node] = chunk;
      this.#indexOf[node] = index;
    });
  }

  /** Recomputes the start positions of the chunks from `rank` on, merging small neighbours first. O(chunks). */
  #restart(rank: number): void {
    const chunks = this.#chunks;
    const small = this.#chunkNodes >> 2;
    // A replace can leave a short chunk behind; join it with its neighbour while the two fit in one chunk.
    for (const at of [rank - 1, rank]) {
      const left = chunks[at];
      const right = chunks[at + 1];
      if (left === undefined || right === undefined) continue;
      if ((left.nodes.length < small || right.nodes.length < small) && left.nodes.length + right.nodes.length <= this.#chunkNodes) {
        for (const node of right.nodes) {
          this.#chunkOf[node] = left;
          this.#indexOf[node] = left.nodes.length;
          left.nodes.push(node);
        }
        chunks.splice(at + 1, 1);
        break;
      }
    }
    let position = rank > 1 ? (chunks[rank - 2] as Chunk).start + (chunks[rank - 2] as Chunk).nodes.length : 0;
    for (let index = Math.max(0, rank - 1); index < chunks.length; index++) {
      const chunk = chunks[index] as Chunk;
      chunk.start = position;
      position += chunk.nodes.length;
    }
    this.#lastRank = 0;
  }

  /** The rank of the chunk holding `position` (`0 <= position < length`): the last lookup's chunk or a neighbour, else a binary search. */
  #rankAt(position: number): number {
    const chunks = this.#chunks;
    for (const rank of [this.#lastRank, this.#lastRank + 1]) {
      const chunk = chunks[rank];
      if (chunk !== undefined && position >= chunk.start && position < chunk.start + chunk.nodes.length) {
        this.#lastRank = rank;
        return rank;
      }
    }
    let low = 0;
    let high = chunks.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((chunks[middle] as Chunk).start <= position) low = middle;
      else high = middle - 1;
    }
    this.#lastRank = low;
    return low;
  }

  /** Grows the by-seq tables (doubling) so that `seq` is a valid index. */
  #reserve(seq: number): void {
    if (seq < this.#indexOf.length) return;
    const size = Math.max(seq + 1, this.#indexOf.length * 2);
    const indexes = new Int32Array(size);
    indexes.set(this.#indexOf);
    this.#indexOf = indexes;
    const shadowedBy = new Int32Array(size);
    shadowedBy.set(this.#shadowedByPlusOne);
    this.#shadowedByPlusOne = shadowedBy;
  }
}
