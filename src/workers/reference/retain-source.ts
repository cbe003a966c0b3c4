/**
 * Byte-budget retention of one reference source (SESSION-REFERENCE.md §10), by the method of §10.6
 * (D2): the output equals the definition of §10.3 byte for byte, but sizes are kept by the
 * arithmetic of §10.1 instead of re-serialising the snapshot per step, the longest text is found
 * with a heap, and each shortening round binary-searches O(1) probes of the candidates.
 * Cost: O(S + n log n + R log max) for total text size S, n items and R rounds.
 */
import { measureText, stringifyTagSafeJson, tagSafeJsonStringBytes } from '../../protocol/tag-safe-json.js';
import type { ProjectedItem } from './project-surface.js';
import type { Utf8Cut } from './utf8-cut.js';
import { createUtf8Cut, decimalDigits } from './utf8-cut.js';
import type { RetentionStats } from '../../protocol/retention-stats.js';
import { assertNever } from '../../protocol/assert-never.js';

/** The source fields of the data object and its projected items (§10.1). */
export interface RetentionInput {
  readonly sessionId: string;
  readonly label: string;
  /** `snapshot.session.cwd ?? null`. */
  readonly cwd: string | null;
  readonly capturedThroughSeq: number | null;
  readonly items: readonly ProjectedItem[];
}

export type { RetentionStats };

/** A source that fits its budget. */
export interface RetainedSource {
  readonly fits: true;
  /** Tag-safe JSON of `{sessionId, label, cwd, capturedThroughSeq, conversation: [{role, text}…]}`. */
  readonly json: string;
  readonly stats: RetentionStats;
  /** Number of Phase B (shorten) rounds that ran. */
  readonly rounds: number;
}

/** A source whose mandatory content cannot fit (`BUDGET_EXCEEDED` for the caller). */
export interface SourceNotFitting {
  readonly fits: false;
}

/**
 * Operation counters that tests read to pin the cost model of §10.6 (Verification 51) without
 * timing: whole-object serialisations, per-item text measures, and candidate probes.
 */
export interface RetentionCounters {
  serializeCalls: number;
  measureCalls: number;
  probes: number;
}

/** `{"role":"user","text":` + `}` around the text; an assistant item is 5 bytes longer. */
const USER_ITEM_BYTES = 23;
const ASSISTANT_ITEM_BYTES = 28;

/** `raw(notice(o))` without the digits of `o` (§10.2). */
const NOTICE_RAW_BYTES = 31;

/** `item(i)` of §10.1: tag-safe bytes of `{"role":…,"text":…}` given `J(text)`. */
export function conversationItemBytes(role: ProjectedItem['role'], textJsonBytes: number): number {
  switch (role) {
    case 'user':
      return USER_ITEM_BYTES + textJsonBytes;
    case 'assistant':
      return ASSISTANT_ITEM_BYTES + textJsonBytes;
    default:
      assertNever(role, 'unexpected conversation role');
  }
}

/**
 * `fixed` of §10.1: tag-safe bytes of the data object with `conversation: []`, computed from the
 * per-string measure so that no whole-object serialisation is needed. The key literals are ASCII
 * without escapes, so their bytes are their lengths.
 */
export function fixedDataBytes(source: Omit<RetentionInput, 'items'>): number {
  const seqJson = JSON.stringify(source.capturedThroughSeq) as string;
  return (
    '{"sessionId":'.length +
    tagSafeJsonStringBytes(source.sessionId) +
    ',"label":'.length +
    tagSafeJsonStringBytes(source.label) +
    ',"cwd":'.length +
    (source.cwd === null ? 'null'.length : tagSafeJsonStringBytes(source.cwd)) +
    ',"capturedThroughSeq":'.length +
    seqJson.length +
    ',"conversation":[]}'.length
  );
}

/** One entry of the longest-text heap; stale when `generation` no longer matches the item's. */
interface HeapEntry {
  readonly rawBytes: number;
  readonly index: number;
  readonly generation: number;
}

/** Heap order of §10.6: larger `raw(text)` first, then the smaller (earlier) index. */
function outranks(a: HeapEntry, b: HeapEntry): boolean {
  return a.rawBytes > b.rawBytes || (a.rawBytes === b.rawBytes && a.index < b.index);
}

/**
 * A binary max-heap of {@link HeapEntry} under {@link outranks}. Private to retention: it is the
 * "first retained item with the largest raw(text)" selector of §10.3 step 1.
 */
class LongestTextHeap {
  readonly #entries: HeapEntry[] = [];

  push(entry: HeapEntry): void {
    const entries = this.#entries;
    let at = entries.length;
    entries.push(entry);
    while (at > 0) {
      const parent = (at - 1) >> 1;
      const above = entries[parent] as HeapEntry;
      if (!outranks(entry, above)) break;
      entries[at] = above;
      at = parent;
    }
    entries[at] = entry;
  }

  peek(): HeapEntry | undefined {
    return this.#entries[0];
  }

  pop(): void {
    const entries = this.#entries;
    const last = entries.pop();
    if (last === undefined || entries.length === 0) return;
    let at = 0;
    const size = entries.length;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= size) break;
      const right = left + 1;
      let best = left;
      if (right < size && outranks(entries[right] as HeapEntry, entries[left] as HeapEntry)) best = right;
      const child = entries[best] as HeapEntry;
      if (!outranks(child, last)) break;
      entries[at] = child;
      at = best;
    }
    entries[at] = last;
  }
}

/**
 * The largest `r` in `[0, high]` with `fits(r)`, given `fits(0)` and that `fits` is monotone
 * (true up to some `r`, false after; §10.2 shows both measures are non-decreasing in `r`).
 */
function largestFitting(high: number, fits: (r: number) => boolean): number {
  let low = 0;
  let top = high;
  while (low < top) {
    const middle = low + Math.ceil((top - low) / 2);
    if (fits(middle)) low = middle;
    else top = middle - 1;
  }
  return low;
}

/**
 * §10.3 steps 2–4 for the selected item: the retained byte count `r` of its new candidate, or
 * undefined when the source fails. `currentRaw`/`currentJson` measure the item's current text and
 * `over = size − max`. `probe` is called once per candidate measured.
 */
function chooseRetainedBytes(cut: Utf8Cut, currentRaw: number, currentJson: number, over: number, probe: () => void): number | undefined {
  const total = cut.totalBytes;
  const target = Math.max(0, currentRaw - over);
  if (NOTICE_RAW_BYTES + decimalDigits(total) <= target) {
    // dsh's own arithmetic: a JSON-byte overflow taken off a raw-byte length (kept for D1).
    return largestFitting(Math.min(target, total - 1), (r) => {
      probe();
      return cut.rawOf(r) <= target;
    });
  }
  // The silent-drop point: dsh would empty the text; D3 budgets in JSON bytes instead.
  const jsonTarget = currentJson - over;
  probe();
  const noticeOnlyJson = cut.jsonOf(0);
  if (noticeOnlyJson <= jsonTarget) {
    return largestFitting(Math.min(total - 1, Math.max(0, jsonTarget)), (r) => {
      probe();
      return cut.jsonOf(r) <= jsonTarget;
    });
  }
  // Notice only: over budget still, but smaller, so a later round (or another item) can go on.
  return noticeOnlyJson < currentJson ? 0 : undefined;
}

/**
 * Fits one source into `maxBytes` tag-safe bytes (§10.3 semantics, §10.6 method). Returns the
 * serialised data object (serialised exactly once) with its stats, or `{fits: false}` when the
 * checkpoints and the newest message cannot fit even as omission notices. `maxBytes` is the
 * validated `maxReferenceBytes`. `counters`, when given, is incremented in place.
 */
export function retainSource(input: RetentionInput, maxBytes: number, counters?: RetentionCounters): RetainedSource | SourceNotFitting {
  const items = input.items;
  const count = items.length;
  const texts: string[] = new Array<string>(count);
  const rawBytes = new Float64Array(count);
  const jsonBytes = new Float64Array(count);
  const omitted = new Float64Array(count);
  const retained = new Uint8Array(count).fill(1);

  let size = fixedDataBytes(input) + Math.max(0, count - 1);
  const measures = { raw: 0, json: 0 };
  for (let index = 0; index < count; index += 1) {
    const item = items[index] as ProjectedItem;
    texts[index] = item.originalText;
    measureText(item.originalText, measures);
    rawBytes[index] = measures.raw;
    jsonBytes[index] = measures.json;
    if (counters !== undefined) counters.measureCalls += 1;
    size += conversationItemBytes(item.role, jsonBytes[index] as number);
  }

  // Phase A: the reference drops "the first non-checkpoint that is not the last" while over budget;
  // once an item is passed it stays ahead of every later candidate, so one forward pass is exact.
  let retainedCount = count;
  let omittedMessages = 0;
  let droppedBytes = 0;
  for (let index = 0; index < count - 1 && size > maxBytes; index += 1) {
    const item = items[index] as ProjectedItem;
    if (item.checkpoint) continue;
    retained[index] = 0;
    retainedCount -= 1;
    omittedMessages += 1;
    droppedBytes += rawBytes[index] as number;
    size -= conversationItemBytes(item.role, jsonBytes[index] as number) + 1;
  }

  // Phase B: shorten the longest current text, one round at a time.
  let rounds = 0;
  if (size > maxBytes) {
    const heap = new LongestTextHeap();
    const generations = new Uint32Array(count);
    for (let index = 0; index < count; index += 1) {
      if (retained[index] === 1) heap.push({ rawBytes: rawBytes[index] as number, index, generation: 0 });
    }
    // One cached cut: a re-selection is almost always the item just shortened (the spec's "after its
    // first shortening" case), and keeping every cut alive would hold ~5 bytes per text byte.
    let cutIndex = -1;
    let cachedCut: Utf8Cut | undefined;
    const probe = (): void => {
      if (counters !== undefined) counters.probes += 1;
    };
    while (size > maxBytes) {
      // Lazy deletion: a shortened item's old entry stays in the heap and is skipped when it surfaces.
      let top = heap.peek();
      while (top !== undefined && top.generation !== generations[top.index]) {
        heap.pop();
        top = heap.peek();
      }
      if (top === undefined || top.rawBytes === 0) return { fits: false };
      const chosen = top.index;
      const currentJson = jsonBytes[chosen] as number;
      if (cachedCut === undefined || cutIndex !== chosen) {
        cachedCut = createUtf8Cut((items[chosen] as ProjectedItem).originalText);
        cutIndex = chosen;
      }
      const cut = cachedCut;
      const retainedBytes = chooseRetainedBytes(cut, rawBytes[chosen] as number, currentJson, size - maxBytes, probe);
      if (retainedBytes === undefined) return { fits: false };
      const shortened = cut.materialize(retainedBytes);
      // §10.3 step 5. The strict targets above make it unreachable; kept because the definition states it.
      if (shortened === texts[chosen]) return { fits: false };
      const shortenedJson = cut.jsonOf(retainedBytes);
      size += shortenedJson - currentJson;
      texts[chosen] = shortened;
      jsonBytes[chosen] = shortenedJson;
      rawBytes[chosen] = cut.rawOf(retainedBytes);
      omitted[chosen] = cut.omittedOf(retainedBytes);
      rounds += 1;
      generations[chosen] = (generations[chosen] as number) + 1;
      heap.push({ rawBytes: rawBytes[chosen] as number, index: chosen, generation: generations[chosen] as number });
    }
  }

  const conversation: { role: ProjectedItem['role']; text: string }[] = [];
  let retainedOmitted = 0;
  for (let index = 0; index < count; index += 1) {
    if (retained[index] === 0) continue;
    conversation.push({ role: (items[index] as ProjectedItem).role, text: texts[index] as string });
    retainedOmitted += omitted[index] as number;
  }
  if (counters !== undefined) counters.serializeCalls += 1;
  const json = stringifyTagSafeJson({
    sessionId: input.sessionId,
    label: input.label,
    cwd: input.cwd,
    capturedThroughSeq: input.capturedThroughSeq,
    conversation,
  });
  const omittedBytes = retainedOmitted + droppedBytes;
  return {
    fits: true,
    json,
    stats: {
      compacted: items.some((item) => item.checkpoint),
      originalMessages: count,
      retainedMessages: retainedCount,
      omittedMessages,
      omittedBytes,
      truncated: omittedMessages > 0 || omittedBytes > 0,
    },
    rounds,
  };
}
