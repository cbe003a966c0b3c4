/**
 * The `/dcp context` block (DCP.md §11.3): the meter figures, the active blocks and boundaries, manual mode, and
 * the optional lock and unreadable-checkpoint lines.
 */

/** Everything the context block shows. Token figures come from `measure()`. */
export interface ContextBlockInput {
  readonly surfaceTokens: number;
  readonly messageTokens: number;
  readonly systemTokens: number;
  readonly toolsTokens: number;
  /** `measure().ratio`, `undefined` without a context window. */
  readonly ratio: number | undefined;
  readonly contextWindow: number | undefined;
  readonly projectedTokens: number;
  /** Active block refs in surface order. */
  readonly activeBlocks: readonly string[];
  /** Active markers and active blocks, in surface order. */
  readonly boundaries: readonly string[];
  readonly manualOn: boolean;
  /** The compactionId holding the lock, when busy. */
  readonly busyCompactionId?: string;
  /** Checkpoints whose DCP metadata does not decode. */
  readonly unreadable: readonly { readonly seq: number; readonly code: string }[];
}

function listOrNone(items: readonly string[]): string {
  return items.length === 0 ? '(none)' : items.join(', ');
}

/** The context block text. */
export function formatContextBlock(input: ContextBlockInput): string {
  const pressure =
    input.ratio !== undefined && input.contextWindow !== undefined
      ? `pressure ~${Math.round(input.ratio * 100)}% of ${input.contextWindow}`
      : 'pressure n/a (no context window)';
  const lines = [
    'DCP context (heuristic token estimates):',
    `surface tokens ~${input.surfaceTokens}`,
    `message tokens ~${input.messageTokens}`,
    `system tokens ~${input.systemTokens}`,
    `tools tokens ~${input.toolsTokens}`,
    pressure,
    `projected ~${input.projectedTokens}`,
    `active blocks: ${listOrNone(input.activeBlocks)}`,
    `boundaries: ${listOrNone(input.boundaries)}`,
    `manual mode: ${input.manualOn ? 'ON' : 'OFF'}`,
  ];
  if (input.busyCompactionId !== undefined) lines.push(`compaction lock: busy (${input.busyCompactionId})`);
  if (input.unreadable.length > 0) {
    lines.push(`unreadable DCP checkpoints: ${input.unreadable.map((entry) => `s${entry.seq} (${entry.code})`).join(', ')}`);
  }
  return lines.join('\n');
}
