/**
 * Whole-call checks of the `compress` tool (DCP.md §7.3 steps 1–4, §7.4, §7.14), with the exact texts in check
 * order. The context checks (sub-call, session, manual gate) come first and are decided by the host; the
 * argument schema checks are pure and collected here, joined by `\n`.
 */
import { isRecord } from '../events.js';
import { TOPIC_MAX_CHARS } from './constants.js';

/** Step 1: `exec.parent` is set (a code-mode sub-call). */
export const RUN_CODE_SUB_CALL_ERROR =
  'compress cannot be executed from a run_code sub-call; use native tool presentation or /dcp compress';

/** Step 2: there is no agent or session. */
export const NO_AGENT_SESSION_ERROR = 'compress requires an agent session';

/** Step 3: the manual gate is closed (§7.14). */
export const MANUAL_GATE_ERROR = 'manual mode is on: compress runs only in a turn started by /dcp compress';

/** Arguments that passed the whole-call schema. */
export interface CompressCallArguments {
  /** The topic, trimmed (what the metadata stores). */
  readonly topic: string;
  /** The raw entries; each is checked on its own (§7.5). */
  readonly content: readonly unknown[];
}

/** The result of the whole-call schema check. */
export type CompressArgumentsResult =
  | { readonly ok: true; readonly args: CompressCallArguments }
  | { readonly ok: false; readonly message: string };

/**
 * True when the manual gate lets `compress` run (§7.14): manual mode is off, or a manual trigger was logged in the
 * current turn.
 */
export function manualGateOpen(manualOn: boolean, lastTriggerTurn: number | undefined, currentTurn: number): boolean {
  return !manualOn || lastTriggerTurn === currentTurn;
}

/**
 * The whole-call schema (§7.4, from `compress arguments must be an object` on). Every failing message is
 * collected in check order and joined by `\n`; a non-object stops at once, and a missing or empty `content`
 * stops the content checks. The topic length is measured after trimming, as stored.
 */
export function validateCompressArguments(args: unknown, maxRangesPerCall: number): CompressArgumentsResult {
  if (!isRecord(args)) return { ok: false, message: 'compress arguments must be an object' };
  const errors: string[] = [];
  const { topic, content } = args;
  const trimmedTopic = typeof topic === 'string' ? topic.trim() : '';
  if (trimmedTopic === '') errors.push('topic must be a non-empty string');
  else if (trimmedTopic.length > TOPIC_MAX_CHARS) errors.push(`topic must be at most ${TOPIC_MAX_CHARS} characters`);
  if (!Array.isArray(content) || content.length === 0) errors.push('content must be a non-empty array');
  else if (content.length > maxRangesPerCall) errors.push(`content accepts at most ${maxRangesPerCall} range(s)`);
  if (errors.length > 0) return { ok: false, message: errors.join('\n') };
  return { ok: true, args: { topic: trimmedTopic, content: content as unknown[] } };
}
