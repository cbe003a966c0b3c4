/**
 * The manual trigger (DCP.md §11.2, §11.4): the followup message `/dcp compress [focus]` queues, which opens the
 * manual gate for its turn, and its recognition during replay.
 */
import { isRecord } from '../events.js';
import type { TextBlock } from '../events.js';
import { DCP_MESSAGE_SOURCE, MANUAL_TRIGGER_PREFIX } from './constants.js';
import { isDcpPluginSource } from './marker-recognition.js';

/**
 * The fixed paragraphs that follow the trigger prefix line, each after a blank line: dsh-dcp's own wording (DCP.md
 * §11.2), since the seed leaves the text open and the model sees it.
 */
const TRIGGER_PARAGRAPHS = [
  'Manual mode trigger received. You must now use the compress tool.',
  'Find the most significant completed conversation content that can be compressed into a high-fidelity technical summary.',
  'Choose safe, closed, tool-pairing-balanced ranges and return after compress with a brief explanation.',
] as const;

/** The trigger text; a non-empty `focus` (trimmed) adds `\n\nAdditional user focus:\n<focus>`. */
export function buildTriggerText(focus?: string): string {
  const base = [MANUAL_TRIGGER_PREFIX, ...TRIGGER_PARAGRAPHS].join('\n\n');
  const trimmed = focus?.trim() ?? '';
  return trimmed === '' ? base : `${base}\n\nAdditional user focus:\n${trimmed}`;
}

/** The followup input of a trigger: the DCP source (the runtime adds `commandId`) and one text block. */
export function triggerMessageInput(focus?: string): { content: TextBlock[]; source: { kind: 'plugin'; plugin: 'dsh-dcp' } } {
  // `content` before `source`: dsh-dcp's key order.
  return { content: [{ type: 'text', text: buildTriggerText(focus) }], source: { ...DCP_MESSAGE_SOURCE } };
}

/** True for a DCP-sourced user message whose first text block starts with `<compress triggered manually>`. */
export function isManualTriggerMessage(message: unknown): boolean {
  if (!isRecord(message) || !isDcpPluginSource(message['source']) || !Array.isArray(message['content'])) return false;
  const firstText: unknown = (message['content'] as unknown[]).find((block) => isRecord(block) && block['type'] === 'text');
  return isRecord(firstText) && typeof firstText['text'] === 'string' && firstText['text'].startsWith(MANUAL_TRIGGER_PREFIX);
}
