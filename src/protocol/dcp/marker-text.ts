/**
 * The boundary marker message (DCP.md §4.2, §4.5, §4.6): the marker line, then the optional manual line, the
 * optional nudge line and the alias lines, joined by `\n`.
 */
import type { TextBlock } from '../events.js';
import { aliasLine, DCP_MESSAGE_SOURCE, markerLine } from './constants.js';

/** The manual line while manual mode is on and the default is off (§4.6). */
export const MANUAL_ON_LINE = 'DCP manual mode: on. Call compress only in a turn that starts with <compress triggered manually>.';

/** The manual line while manual mode is off and the default is on (§4.6). */
export const MANUAL_OFF_LINE = 'DCP manual mode: off. Compress closed ranges when useful.';

/** One alias to emit: marker `ref` now lives at surface node `seq`. */
export interface MarkerAlias {
  readonly ref: string;
  readonly seq: number;
}

/** What a marker says. */
export interface MarkerTextInput {
  /** The marker's own ref (`mNNNN`). */
  readonly ref: string;
  /** The turn being entered. */
  readonly turn: number;
  /** The step being entered. */
  readonly step: number;
  /** The manual line, if any (see {@link manualLineFor}). */
  readonly manualLine?: string;
  /** The nudge line, if any (see `nudgeLine` in nudge.ts). */
  readonly nudgeLine?: string;
  /** Alias lines to emit, already chosen and ordered by the caller (§4.5 rule 2). */
  readonly aliases?: readonly MarkerAlias[];
}

/**
 * The manual line for a marker (§4.6), or `undefined`: only on first-pre-step markers (`step === 1`), and only while the replayed
 * manual state differs from `manualMode.default`.
 */
export function manualLineFor(step: number, manualOn: boolean, manualDefault: boolean): string | undefined {
  if (step !== 1 || manualOn === manualDefault) return undefined;
  return manualOn ? MANUAL_ON_LINE : MANUAL_OFF_LINE;
}

/** The marker text: marker line, manual line, nudge line, alias lines; absent lines left out. */
export function buildMarkerText(input: MarkerTextInput): string {
  const line = markerLine(input.ref, input.turn, input.step);
  if (input.manualLine === undefined && input.nudgeLine === undefined && (input.aliases?.length ?? 0) === 0) return line;
  const lines = [line];
  if (input.manualLine !== undefined) lines.push(input.manualLine);
  if (input.nudgeLine !== undefined) lines.push(input.nudgeLine);
  for (const alias of input.aliases ?? []) lines.push(aliasLine(alias.ref, alias.seq));
  return lines.join('\n');
}

/** The `createUserMessage` input of a marker (§4.2): the DCP source and one text block; fresh objects. */
export function markerMessageInput(text: string): { content: TextBlock[]; source: { kind: 'plugin'; plugin: 'dsh-dcp' } } {
  // `content` before `source`: the key order dsh-dcp writes (its logs and requests are compared byte for byte).
  return { content: [{ type: 'text', text }], source: { ...DCP_MESSAGE_SOURCE } };
}
