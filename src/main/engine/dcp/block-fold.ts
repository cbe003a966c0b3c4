/**
 * DCP blocks and their membership as the DCP index folds them (DCP.md §3.1 "blocks", §6.4, §13.1): each block a
 * DCP-class checkpoint created, the block at each checkpoint seq, the greatest block number, what became of each
 * block once a later replace shadowed it, and the diagnostics of undecodable DCP checkpoints. A replace of k nodes
 * is O(k).
 */
import type { DcpMetaV1 } from '../../../protocol/dcp/dcp-meta.js';
import type { DcpDiagnostic, ReplaceClass } from '../../../protocol/dcp/replace-class.js';
import { blockNumber } from '../../../protocol/dcp/refs.js';
import type { IndexStep } from './index-step.js';

/** Membership of a block (§13.1). */
export type BlockMembership = 'active' | 'consumed' | 'expanded' | 'absorbed-native';

/** A DCP block: a checkpoint carrying metadata v1 (§3.1 "blocks"). */
export interface BlockRecord {
  readonly ref: string;
  /** The checkpoint's seq. */
  readonly seq: number;
  readonly meta: DcpMetaV1;
  readonly membership: BlockMembership;
  /** The block that consumed or expanded it. */
  readonly successor?: string;
}

interface MutableBlock {
  readonly ref: string;
  readonly seq: number;
  readonly meta: DcpMetaV1;
  membership: BlockMembership;
  successor?: string;
}

/** What an active block becomes when a replace of class `kind` shadows it. */
function membershipAfter(kind: ReplaceClass): BlockMembership {
  if (kind === 'dcp-summary') return 'consumed';
  if (kind === 'dcp-expansion') return 'expanded';
  return 'absorbed-native';
}

/** The block fold of one session. */
export class BlockFold {
  readonly #blocks = new Map<string, MutableBlock>();
  readonly #refBySeq = new Map<number, string>();
  #maxNumber = 0;
  readonly #diagnostics = new Map<number, DcpDiagnostic>();
  readonly #onDiagnostic: ((seq: number, diagnostic: DcpDiagnostic) => void) | undefined;

  /** `onDiagnostic` is called once when a `foreign-dcp` diagnostic is recorded. */
  constructor(onDiagnostic?: (seq: number, diagnostic: DcpDiagnostic) => void) {
    this.#onDiagnostic = onDiagnostic;
  }

  /** The greatest block number of any decodable block ever written (0 when none). */
  get maxNumber(): number {
    return this.#maxNumber;
  }

  /** The block with this ref (a copy), or `undefined`. */
  get(ref: string): BlockRecord | undefined {
    const block = this.#blocks.get(ref);
    return block === undefined ? undefined : { ...block };
  }

  /** The ref of the block whose checkpoint is `seq`, or `undefined`. */
  refAt(seq: number): string | undefined {
    return this.#refBySeq.get(seq);
  }

  /** Every (checkpoint seq, ref) of a block. */
  refsBySeq(): ReadonlyMap<number, string> {
    return this.#refBySeq;
  }

  /** The ref of the **active** block whose checkpoint is `seq`, or `undefined`. */
  activeRefAt(seq: number): string | undefined {
    const ref = this.#refBySeq.get(seq);
    return ref !== undefined && this.#blocks.get(ref)?.membership === 'active' ? ref : undefined;
  }

  /** Every block (copies) in ref-number order. */
  list(): BlockRecord[] {
    return [...this.#blocks.values()].sort((a, b) => (blockNumber(a.ref) ?? 0) - (blockNumber(b.ref) ?? 0)).map((block) => ({ ...block }));
  }

  /** The diagnostic of an undecodable DCP checkpoint at `seq`, or `undefined` (§6.4). */
  diagnostic(seq: number): DcpDiagnostic | undefined {
    return this.#diagnostics.get(seq);
  }

  /** Every diagnostic in seq order. */
  diagnostics(): Array<{ readonly seq: number } & DcpDiagnostic> {
    return [...this.#diagnostics].sort(([a], [b]) => a - b).map(([seq, diagnostic]) => ({ seq, ...diagnostic }));
  }

  /** Folds one event: only replaces create blocks or change membership. */
  apply(step: IndexStep): void {
    const replace = step.replace;
    if (replace === undefined) return;
    const { seq } = step.event;
    const { classified } = replace;
    let newRef: string | undefined;
    if (classified.kind === 'dcp-summary' || classified.kind === 'dcp-expansion') {
      newRef = classified.meta.blockRef;
      this.#maxNumber = Math.max(this.#maxNumber, blockNumber(newRef) ?? 0);
      if (!this.#blocks.has(newRef)) {
        this.#blocks.set(newRef, { ref: newRef, seq, meta: classified.meta, membership: 'active' });
        this.#refBySeq.set(seq, newRef);
      }
    } else if (classified.kind === 'foreign-dcp') {
      this.#diagnostics.set(seq, classified.diagnostic);
      this.#onDiagnostic?.(seq, classified.diagnostic);
    }
    for (const shadowed of replace.delta.shadowed) {
      const ref = this.#refBySeq.get(shadowed);
      const block = ref === undefined ? undefined : this.#blocks.get(ref);
      if (block === undefined || block.membership !== 'active') continue;
      block.membership = membershipAfter(classified.kind);
      if (newRef !== undefined) block.successor = newRef;
    }
  }
}
