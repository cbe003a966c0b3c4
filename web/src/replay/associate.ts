/**
 * Replay association (issue 18, the seed's Web host): each `session-reference` context attaches to the direct user
 * message right before it (`attachedToSeq`), so the conversation shows the user bubble with its mentions and one
 * summary line, and the context as one collapsed row under it instead of a bubble of snapshot JSON.
 */
import type { WebTranscriptItem } from '../../../src/protocol/web/web-api.js';

/** A session-reference context item. */
export type RecallItem = Extract<WebTranscriptItem, { kind: 'session-recall' }>;

/** A direct user message. */
export type UserItem = Extract<WebTranscriptItem, { kind: 'user' }>;

/** One row of the rendered conversation (a closed union on `kind`). */
export type ConversationRow =
  | { readonly kind: 'user'; readonly item: UserItem; readonly recalls: readonly RecallItem[] }
  | { readonly kind: 'recall'; readonly item: RecallItem; readonly attached: boolean }
  | { readonly kind: 'other'; readonly item: Exclude<WebTranscriptItem, UserItem | RecallItem> };

/** The joiner of labels in the summary lines (`, `, as the reference fixtures join mentions). */
export const LABEL_JOINER = ', ';

/**
 * The labels of a context, joined for its summary lines.
 *
 * @param recall the context
 */
export function joinedLabels(recall: RecallItem): string {
  return recall.labels.join(LABEL_JOINER);
}

/**
 * The rows of a surface: each attached context right after its user message (and named by it); a context whose
 * message is not on the surface stays where it is, unattached.
 *
 * @param items the surface items, in surface order
 */
export function conversationRows(items: readonly WebTranscriptItem[]): ConversationRow[] {
  const userSeqs = new Set(items.filter((item) => item.kind === 'user').map((item) => item.seq));
  const byUser = new Map<number, RecallItem[]>();
  for (const item of items) {
    if (item.kind !== 'session-recall' || item.attachedToSeq === null || !userSeqs.has(item.attachedToSeq)) continue;
    const list = byUser.get(item.attachedToSeq);
    if (list === undefined) byUser.set(item.attachedToSeq, [item]);
    else list.push(item);
  }
  const rows: ConversationRow[] = [];
  for (const item of items) {
    switch (item.kind) {
      case 'user': {
        const recalls = byUser.get(item.seq) ?? [];
        rows.push({ kind: 'user', item, recalls });
        for (const recall of recalls) rows.push({ kind: 'recall', item: recall, attached: true });
        break;
      }
      case 'session-recall':
        if (item.attachedToSeq === null || !userSeqs.has(item.attachedToSeq)) rows.push({ kind: 'recall', item, attached: false });
        break;
      case 'assistant':
      case 'reasoning':
      case 'tool-call':
      case 'tool-result':
      case 'checkpoint':
        rows.push({ kind: 'other', item });
        break;
      default: {
        const never: never = item;
        throw new TypeError(`unknown transcript item ${JSON.stringify(never)}`);
      }
    }
  }
  return rows;
}
