/**
 * Building the boundary marker of a step (DCP.md §4.2–§4.6, §9): the next marker number, the manual line on
 * first-pre-step markers (`step === 1`) while manual mode differs from its default, the nudge line, and the pending alias lines. The
 * work is O(emitted aliases): every input is an O(1) index or meter read.
 */
import type { DcpConfig } from '../../../protocol/dcp/config.js';
import type { MarkerAlias } from '../../../protocol/dcp/marker-text.js';
import { buildMarkerText, manualLineFor } from '../../../protocol/dcp/marker-text.js';
import { DCP_MESSAGE_SOURCE } from '../../../protocol/dcp/constants.js';
import { decideNudge, nudgeCouldFire, nudgesAllowed } from '../../../protocol/dcp/nudge.js';
import { formatMarkerRef } from '../../../protocol/dcp/refs.js';
import type { UserMessage } from '../../../protocol/user-message.js';
import { textUserMessage } from '../../../protocol/user-message.js';
import type { SurfaceReader } from '../../../protocol/surface-view.js';
import type { TokenMeasure } from '../../host-api/host-api.js';
import type { DcpIndex } from './dcp-index.js';

/** What the marker reads from the session. */
export interface MarkerSession {
  readonly surface: SurfaceReader;
  readonly meter: { measure(): TokenMeasure };
}

/** The alias lines of the next marker (§4.5 rule 2): pending refs in number order, at most `maxAliasEntries`. */
export function chooseAliases(index: DcpIndex, session: MarkerSession, maxAliasEntries: number): MarkerAlias[] {
  if (maxAliasEntries <= 0) return [];
  const aliases: MarkerAlias[] = [];
  for (const pending of index.pendingAliases(maxAliasEntries)) {
    // The index keeps every pending target on the surface; the check guards a log it could not fully read.
    if (session.surface.has(pending.target)) aliases.push({ ref: pending.ref, seq: pending.target });
  }
  return aliases;
}

/** The marker text for turn `turn`, step `step` (the step being entered, 1 for the turn's first step). */
export function boundaryMarkerText(index: DcpIndex, session: MarkerSession, config: DcpConfig, turn: number, step: number): string {
  const manualOn = index.manualOn;
  const nudgeState = index.nudgeState;
  // The ratio is measured only when a nudge could fire (most markers need no meter read at all).
  const nudgeLine =
    nudgesAllowed(config.nudge.enabled, config.compress.enabled, manualOn) && nudgeCouldFire(nudgeState, config.nudge)
      ? decideNudge(nudgeState, session.meter.measure().ratio, config.nudge)
      : undefined;
  return buildMarkerText({
    ref: formatMarkerRef(index.maxMarkerNumber + 1),
    turn,
    step,
    manualLine: manualLineFor(step, manualOn, config.manualMode.default),
    nudgeLine,
    aliases: chooseAliases(index, session, config.references.maxAliasEntries),
  });
}

/**
 * The marker message (§4.2): one text block and the DCP source, in `markerMessageInput`'s key order (built fresh, so
 * frozen without a copy).
 */
export function buildBoundaryMarker(index: DcpIndex, session: MarkerSession, config: DcpConfig, turn: number, step: number): UserMessage {
  return textUserMessage(boundaryMarkerText(index, session, config, turn, step), DCP_MESSAGE_SOURCE);
}
