/**
 * The protection appendix of one range (DCP.md §7.8, §7.9): walks the shadowed nodes once, in surface order, and
 * collects the verbatim sections (user messages, protected tool outputs) and the directly consumed active blocks.
 * The texts and their order come from the pure appendix module.
 */
import type { ContentBlock, MessageSource, SessionEvent } from '../../../protocol/events.js';
import { resultCallId } from '../../../protocol/dcp/stored-blocks.js';
import type { Appendix, AppendixSection, UserProtectionSettings } from '../../../protocol/dcp/protection-appendix.js';
import {
  assembleAppendix,
  isProtectedToolOutput,
  toolOutputSection,
  toolResultText,
  userMessageSections,
  userMessageText,
} from '../../../protocol/dcp/protection-appendix.js';
import type { PriorBlock } from '../../../protocol/dcp/checkpoint-text.js';
import { extractCheckpointBody } from '../../../protocol/dcp/checkpoint-text.js';
import { eventMessage } from '../../../protocol/event-message.js';
import type { DcpIndex } from './dcp-index.js';

/** The settings the appendix depends on. */
export interface AppendixSettings extends UserProtectionSettings {
  /** `compress.protectedTools`. */
  readonly protectedTools: readonly string[];
  /** The compiled `protectedFilePatterns`. */
  readonly matchesProtectedFile: (path: string) => boolean;
}

/** The appendix of a range and the blocks it consumes. */
export interface RangeAppendix {
  readonly appendix: Appendix;
  /** The direct active blocks in the range, in surface order (`consumedBlockRefs`). */
  readonly consumedBlockRefs: readonly string[];
}

/** Builds the appendix of the shadowed nodes `shadowed` (surface order). O(range). */
export function buildRangeAppendix(
  index: DcpIndex,
  events: readonly SessionEvent[],
  shadowed: readonly number[],
  settings: AppendixSettings,
): RangeAppendix {
  const userSections: AppendixSection[] = [];
  const toolSections: AppendixSection[] = [];
  const priors: PriorBlock[] = [];
  const consumed: string[] = [];
  for (const seq of shadowed) {
    index.counters.nodesVisited += 1;
    const event = events[seq] as SessionEvent;
    const message = eventMessage(event);
    if (message === undefined) continue;
    if (event.type === 'user/message') {
      const blockRef = index.activeBlockRefAt(seq);
      if (blockRef !== undefined) {
        priors.push({ ref: blockRef, body: extractCheckpointBody(userMessageText(message.content), blockRef) });
        consumed.push(blockRef);
        continue;
      }
      userSections.push(...userMessageSections(message.source as MessageSource, message.content as readonly ContentBlock[], settings));
      continue;
    }
    if (event.type !== 'tool/result') continue;
    const callId = resultCallId(message);
    const call = callId === undefined ? undefined : index.call(callId);
    if (call === undefined) continue;
    if (isProtectedToolOutput(call.name, call.filePaths, settings.protectedTools, settings.matchesProtectedFile)) {
      toolSections.push(toolOutputSection(call.name, toolResultText(message.content)));
    }
  }
  return { appendix: assembleAppendix(userSections, toolSections, priors), consumedBlockRefs: consumed };
}
