/**
 * Recognising DCP marker messages in a log (DCP.md §4.4): only a `user/message` from the `dsh-dcp` plugin whose
 * first line of `content[0].text` matches the lenient marker regex. Text anywhere else is never parsed, so quotes
 * and verbatim copies do not skew marker numbers or nudge counts.
 */
import { isRecord } from '../events.js';
import { ALIAS_RE, DCP_PLUGIN, MARKER_LENIENT_RE, MARKER_STRICT_RE, NUDGE_PREFIX, PLUGIN_SOURCE_KIND } from './constants.js';
import { markerNumber } from './refs.js';

/** What a recognised marker message carries. */
export interface RecognizedMarker {
  /** The marker ref as written (`mNNNN`). */
  readonly ref: string;
  /** Its number (for `maxMarkerNumber`). */
  readonly number: number;
  /** True when one of its lines starts with `DCP compression recommended:`. */
  readonly hasNudge: boolean;
  /** Its alias lines in line order (every match; "first line for a ref wins" is applied by the reader). */
  readonly aliases: readonly ParsedAlias[];
}

/** A parsed alias line. */
export interface ParsedAlias {
  readonly ref: string;
  readonly seq: number;
}

/** A parsed strict marker line. */
export interface ParsedMarkerLine {
  readonly ref: string;
  readonly turn: number;
  readonly step: number;
}

/** True for `{kind:'plugin', plugin:'dsh-dcp', …}`. */
export function isDcpPluginSource(source: unknown): boolean {
  return isRecord(source) && source['kind'] === PLUGIN_SOURCE_KIND && source['plugin'] === DCP_PLUGIN;
}

/** Parses a line written by this build (the strict regex), or `undefined`. */
export function parseStrictMarkerLine(line: string): ParsedMarkerLine | undefined {
  const match = MARKER_STRICT_RE.exec(line);
  if (match === null) return undefined;
  const turn = Number(match[2]);
  const step = Number(match[3]);
  if (!Number.isSafeInteger(turn) || !Number.isSafeInteger(step)) return undefined;
  return { ref: match[1]!, turn, step };
}

/** Parses one alias line after trimming it (§4.4), or `undefined`. A seq beyond the safe range is no alias. */
export function parseAliasLine(line: string): ParsedAlias | undefined {
  const match = ALIAS_RE.exec(line.trim());
  if (match === null) return undefined;
  const seq = Number(match[2]);
  return Number.isSafeInteger(seq) ? { ref: match[1]!, seq } : undefined;
}

/** True when a line is a nudge line. */
export function isNudgeLine(line: string): boolean {
  return line.startsWith(NUDGE_PREFIX);
}

/** The text of `content[0]` when it is a text block, else `undefined`. */
function firstBlockText(message: Record<string, unknown>): string | undefined {
  const content = message['content'];
  if (!Array.isArray(content)) return undefined;
  const first: unknown = content[0];
  if (!isRecord(first) || first['type'] !== 'text' || typeof first['text'] !== 'string') return undefined;
  return first['text'];
}

/**
 * Recognises a DCP marker in the message of a `user/message` event, or returns `undefined`. The lenient regex
 * reads dsh-dcp logs. Nudge and alias lines are read from the same text block (a marker has one).
 * A ref whose number exceeds the safe integer range is not treated as a marker.
 */
export function recognizeMarker(message: unknown): RecognizedMarker | undefined {
  if (!isRecord(message) || !isDcpPluginSource(message['source'])) return undefined;
  const text = firstBlockText(message);
  if (text === undefined) return undefined;
  const lines = text.split('\n');
  const match = MARKER_LENIENT_RE.exec(lines[0]!);
  if (match === null) return undefined;
  const ref = match[1]!;
  const number = markerNumber(ref);
  if (number === undefined) return undefined;
  let hasNudge = false;
  const aliases: ParsedAlias[] = [];
  for (const line of lines) {
    if (isNudgeLine(line)) hasNudge = true;
    const alias = parseAliasLine(line);
    if (alias !== undefined) aliases.push(alias);
  }
  return { ref, number, hasNudge, aliases };
}
