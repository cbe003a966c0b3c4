/**
 * The manual trigger (DCP.md §11.2, §11.4): the followup message `/dcp compress [focus]` queues, which opens the
 * manual gate for its turn, and its recognition during replay.
 */
import { isRecord } from '../events.js';
import type { TextBlock } from '../events.js';
import { DCP_MESSAGE_SOURCE, MANUAL_TRIGGER_PREFIX } from './constants.js';
import { isDcpPluginSource } from './marker-recognition.js';

/** The fixed instruction that follows the trigger prefix line. */
const TRIGGER_INSTRUCTION =
  'The user asked you to compress the conversation now. Use the compress tool in this turn: pick the most significant completed content, use safe closed ranges whose cuts do not split a tool call from its result, then briefly explain what you compressed.';

/** The trigger text; a non-empty `focus` (trimmed) adds `\n\nAdditional user focus:\n<focus>`. */
export function buildTriggerText(focus?: string): string {
  const base = `${MANUAL_TRIGGER_PREFIX}\n${TRIGGER_INSTRUCTION}`;
  const trimmed = focus?.trim() ?? '';
  return trimmed === '' ? base : `${base}\n\nAdditional user focus:\n${trimmed}`;
}

/** The followup input of a trigger: the DCP source (the runtime adds `commandId`) and one text block. */
export function triggerMessageInput(focus?: string): { source: { kind: 'plugin'; plugin: 'dsh-dcp' }; content: TextBlock[] } {
  return { source: { ...DCP_MESSAGE_SOURCE }, content: [{ type: 'text', text: buildTriggerText(focus) }] };
}

/** True for a DCP-sourced user message whose first text block starts with `<compress triggered manually>`. */
export function isManualTriggerMessage(message: unknown): boolean {
  if (!isRecord(message) || !isDcpPluginSource(message['source']) || !Array.isArray(message['content'])) return false;
  const firstText: unknown = (message['content'] as unknown[]).find((block) => isRecord(block) && block['type'] === 'text');
  return isRecord(firstText) && typeof firstText['text'] === 'string' && firstText['text'].startsWith(MANUAL_TRIGGER_PREFIX);
}
