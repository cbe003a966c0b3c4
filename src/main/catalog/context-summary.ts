/**
 * The picture of a long session's context (issue 18, Context view): the estimated context size after every surface
 * change, the drops where native compaction, DCP compress blocks and prunes landed, and the table of DCP blocks.
 * Computed by one cold replay of the stored log with the host's own fold — the surface view and token meter
 * (`ReplayHost`, HOST.md §4.1 estimates: visible messages + system prompt + tool definitions) and the DCP index
 * (`DcpIndex`, DCP.md §3) — so its figures are the ones `/dcp stats` and DCP's nudges see. Pure over the events; the
 * replay runs in slices of a few milliseconds that yield to the event loop, so a long log does not stall the server.
 */
import { performance } from 'node:perf_hooks';
import { classifyReplace } from '../../protocol/dcp/replace-class.js';
import type { SessionEvent } from '../../protocol/events.js';
import type { WebContextDrop, WebContextPoint, WebDcpBlock } from '../../protocol/web/web-api.js';
import type { DcpIndexOptions } from '../engine/dcp/dcp-index.js';
import { DcpIndex } from '../engine/dcp/dcp-index.js';
import { recordedContextWindows } from '../engine/dcp/recorded-context-windows.js';
import { ReplayHost } from '../engine/dcp/replay-host.js';
import { yieldToEventLoop } from '../../io/yield-to-event-loop.js';

/** What {@link contextSummary} computes. */
export interface ContextSummary {
  readonly points: WebContextPoint[];
  readonly drops: WebContextDrop[];
  readonly blocks: WebDcpBlock[];
  /** The DCP index after the whole log: `/dcp stats` reads its blocks and prefix invalidations. */
  readonly index: DcpIndex;
  /** The surface's estimate after the whole log (the `current surface` of `/dcp stats`). */
  readonly surfaceTokens: number;
}

/** How long one slice of the replay runs before it yields (well under a frame; the server answers between slices). */
const SLICE_MS = 4;

/** How many events pass between two looks at the clock. */
const CLOCK_EVERY_EVENTS = 64;

/** How much a replace moved the context: before and after it. */
interface ReplaceEffect {
  readonly tokensBefore: number;
  readonly tokensAfter: number;
}

/**
 * The drop kind of a replace, or `undefined` for one that is no drop (an expansion puts text back; an unclassified
 * replace is not one of ours to name).
 */
function dropKind(event: SessionEvent, previous: SessionEvent | undefined): { kind: WebContextDrop['kind']; blockId?: string } | undefined {
  const classified = classifyReplace(event, previous);
  switch (classified.kind) {
    case 'dcp-summary':
      return { kind: 'dcp-compress', blockId: classified.meta.blockRef };
    case 'dcp-purge':
    case 'dcp-dedup':
    case 'dcp-cleanup':
      return { kind: 'dcp-prune' };
    case 'native':
    case 'foreign-dcp':
      return { kind: 'compaction' };
    case 'dcp-expansion':
    case 'other':
      return undefined;
    default:
      return undefined;
  }
}

/**
 * The context picture of a whole stored log (seq 0 first, as the store's inspection returns it).
 * @param events - the session's events.
 * @param options - the DCP index settings of the configuration (`manualMode.default`, `nudge.minRatio`).
 * @param signal - stops the replay between two slices (it rejects with the signal's reason).
 */
export async function contextSummary(
  events: readonly SessionEvent[],
  options: DcpIndexOptions,
  signal?: AbortSignal,
): Promise<ContextSummary> {
  const index = new DcpIndex(options);
  const host = new ReplayHost(recordedContextWindows(events));
  const points: WebContextPoint[] = [];
  const drops: WebContextDrop[] = [];
  const effects = new Map<number, ReplaceEffect>();
  const bySeq = new Map<number, SessionEvent>();
  let tokens = host.meter.measure().totalTokens;
  let previous: SessionEvent | undefined;
  let sliceStart = performance.now();
  let counted = 0;
  for (const event of events) {
    counted += 1;
    if (counted % CLOCK_EVERY_EVENTS === 0 && performance.now() - sliceStart >= SLICE_MS) {
      await yieldToEventLoop();
      signal?.throwIfAborted();
      sliceStart = performance.now();
    }
    bySeq.set(event.seq, event);
    const delta = host.apply(event);
    index.apply(event, delta, host);
    const before = tokens;
    tokens = host.meter.measure().totalTokens;
    if (delta !== undefined) {
      points.push({ seq: event.seq, turn: index.turnOf(event.seq), tokens });
      if (delta.kind === 'replace') {
        effects.set(event.seq, { tokensBefore: before, tokensAfter: tokens });
        const kind = dropKind(event, previous);
        if (kind !== undefined) drops.push({ seq: event.seq, ...kind, tokensBefore: before, tokensAfter: tokens });
      }
    }
    previous = event;
  }
  const blocks = index.blocks().map((block): WebDcpBlock => {
    const op = bySeq.get(block.seq)?.surfaceOp;
    const range = op === undefined || op === 'append' ? { start: block.seq, end: block.seq } : op;
    const effect = effects.get(block.seq);
    return {
      id: block.ref,
      topic: block.meta.topic,
      fromSeq: range.start,
      toSeq: range.end,
      tokensSaved: effect === undefined ? 0 : effect.tokensBefore - effect.tokensAfter,
      state: block.membership,
    };
  });
  return { points, drops, blocks, index, surfaceTokens: host.meter.measure().surfaceTokens };
}
