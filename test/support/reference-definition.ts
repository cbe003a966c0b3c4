/**
 * Literal, deliberately slow implementations of source retention, used as test oracles and as the
 * benchmark baseline (BENCHMARKS.md P1):
 * - {@link retainByDefinition} is SESSION-REFERENCE.md §10.3 word for word: every size check
 *   re-serialises the whole data object with `stringifyTagSafeJson`, and every probe of the binary
 *   search materialises and measures the candidate string (the "faithful port of the quadratic
 *   definition").
 * - {@link retainLikeDsh} is the same loop as dsh 0.1.1-rc.2 runs it: at the silent-drop point the
 *   text becomes `''` with the whole original counted as omitted and no notice (§10.4, goldens G6/G7).
 * Neither shares code with `src/workers/reference/*` beyond the tag-safe serialiser the spec names,
 * so agreement is evidence, not tautology. Candidates are cut with Buffer (which, unlike a default
 * TextDecoder, keeps a leading U+FEFF).
 */
import { stringifyTagSafeJson } from '../../src/protocol/tag-safe-json.js';
import type { ProjectedItem } from '../../src/workers/reference/project-surface.js';
import type { RetentionInput, RetentionStats } from '../../src/workers/reference/retain-source.js';

/** Optional counters, so benchmarks can show how often the definition serialises. */
export interface DefinitionCounters {
  serializeCalls: number;
}

/** The outcome of a definition run: the same shape as `retainSource`, plus the retained texts. */
export type DefinitionOutcome =
  | {
      readonly fits: true;
      readonly json: string;
      readonly stats: RetentionStats;
      readonly rounds: number;
      readonly texts: readonly string[];
    }
  | { readonly fits: false };

/** A dsh-loop outcome and whether dsh's silent drop (text → `''`) happened on the way. */
export type DshOutcome = DefinitionOutcome & { readonly reachedSilentDrop: boolean };

interface WorkingItem {
  readonly role: ProjectedItem['role'];
  readonly checkpoint: boolean;
  readonly originalText: string;
  text: string;
  omitted: number;
}

interface Candidate {
  readonly text: string;
  readonly omitted: number;
}

/** raw(s) of §10.1 (Buffer counts a lone surrogate as its 3-byte replacement). */
function raw(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** J(s) of §10.1, measured by serialising. */
function json(text: string): number {
  return Buffer.byteLength(stringifyTagSafeJson(text), 'utf8');
}

function notice(omitted: number): string {
  return `\n[… omitted ${omitted} UTF-8 bytes …]`;
}

function isBoundary(bytes: Buffer, offset: number): boolean {
  return offset === bytes.length || ((bytes[offset] as number) & 0xc0) !== 0x80;
}

/** `candidate(r)` of §10.2 for `0 ≤ r < T`, built by slicing and decoding the UTF-8 bytes. */
export function candidateByDefinition(original: string, retainedBytes: number): Candidate {
  const bytes = Buffer.from(original, 'utf8');
  const total = bytes.length;
  const head = Math.ceil(retainedBytes / 2);
  const tail = Math.floor(retainedBytes / 2);
  let headEnd = head;
  while (!isBoundary(bytes, headEnd)) headEnd -= 1;
  let tailStart = total - tail;
  while (!isBoundary(bytes, tailStart)) tailStart += 1;
  const kept = bytes.subarray(0, headEnd).toString('utf8') + bytes.subarray(tailStart, total).toString('utf8');
  const omitted = total - headEnd - (total - tailStart);
  return { text: kept + notice(omitted), omitted };
}

/**
 * dsh's head/tail cut for any `r ≥ 0`: when head and tail cover the whole text, its retainer keeps
 * everything and reports 0 omitted bytes. (Such candidates are never small enough to be chosen.)
 */
function dshCandidate(original: string, retainedBytes: number): Candidate {
  const bytes = Buffer.from(original, 'utf8');
  if (retainedBytes >= bytes.length) return { text: bytes.toString('utf8') + notice(0), omitted: 0 };
  return candidateByDefinition(original, retainedBytes);
}

/** dsh's binary search: the largest `r` in `[0, high]` whose candidate passes `fits`, or undefined. */
function searchLargest(high: number, build: (r: number) => Candidate, fits: (c: Candidate) => boolean): Candidate | undefined {
  let low = 0;
  let top = high;
  let best: Candidate | undefined;
  while (low <= top) {
    const middle = Math.floor((low + top) / 2);
    const candidate = build(middle);
    if (fits(candidate)) {
      best = candidate;
      low = middle + 1;
    } else {
      top = middle - 1;
    }
  }
  return best;
}

/** How Phase B picks a replacement text; `undefined` means the source fails. */
type Shortener = (item: WorkingItem, over: number) => Candidate | undefined;

function runRetention(
  input: RetentionInput,
  maxBytes: number,
  shorten: Shortener,
  counters: DefinitionCounters | undefined,
): DefinitionOutcome {
  const original: WorkingItem[] = input.items.map((item) => ({
    role: item.role,
    checkpoint: item.checkpoint,
    originalText: item.originalText,
    text: item.originalText,
    omitted: 0,
  }));
  const retained = [...original];
  const data = () => ({
    sessionId: input.sessionId,
    label: input.label,
    cwd: input.cwd,
    capturedThroughSeq: input.capturedThroughSeq,
    conversation: retained.map(({ role, text }) => ({ role, text })),
  });
  const size = (): number => {
    if (counters !== undefined) counters.serializeCalls += 1;
    return Buffer.byteLength(stringifyTagSafeJson(data()), 'utf8');
  };

  let omittedMessages = 0;
  let droppedBytes = 0;
  while (size() > maxBytes) {
    const newest = retained.length - 1;
    const drop = retained.findIndex((item, index) => !item.checkpoint && index !== newest);
    if (drop < 0) break;
    const [removed] = retained.splice(drop, 1);
    omittedMessages += 1;
    droppedBytes += raw((removed as WorkingItem).originalText);
  }

  let rounds = 0;
  while (size() > maxBytes) {
    let longest: WorkingItem | undefined;
    let longestBytes = 0;
    for (const item of retained) {
      const bytes = raw(item.text);
      if (bytes > longestBytes) {
        longestBytes = bytes;
        longest = item;
      }
    }
    if (longest === undefined) return { fits: false };
    const replacement = shorten(longest, size() - maxBytes);
    if (replacement === undefined || replacement.text === longest.text) return { fits: false };
    longest.text = replacement.text;
    longest.omitted = replacement.omitted;
    rounds += 1;
  }

  const omittedBytes = retained.reduce((sum, item) => sum + item.omitted, 0) + droppedBytes;
  if (counters !== undefined) counters.serializeCalls += 1;
  return {
    fits: true,
    json: stringifyTagSafeJson(data()),
    stats: {
      compacted: original.some((item) => item.checkpoint),
      originalMessages: original.length,
      retainedMessages: retained.length,
      omittedMessages,
      omittedBytes,
      truncated: omittedMessages > 0 || omittedBytes > 0,
    },
    rounds,
    texts: retained.map((item) => item.text),
  };
}

/** §10.3 exactly (with D3), re-serialising and re-materialising at every step. */
export function retainByDefinition(input: RetentionInput, maxBytes: number, counters?: DefinitionCounters): DefinitionOutcome {
  const shorten: Shortener = (item, over) => {
    const total = raw(item.originalText);
    const target = Math.max(0, raw(item.text) - over);
    const build = (r: number) => candidateByDefinition(item.originalText, r);
    if (31 + String(total).length <= target) {
      return searchLargest(Math.min(target, total - 1), build, (c) => raw(c.text) <= target);
    }
    const jsonTarget = json(item.text) - over;
    const fitting = searchLargest(Math.min(total - 1, Math.max(0, jsonTarget)), build, (c) => json(c.text) <= jsonTarget);
    if (fitting !== undefined) return fitting;
    const noticeOnly = build(0);
    return json(noticeOnly.text) < json(item.text) ? noticeOnly : undefined;
  };
  return runRetention(input, maxBytes, shorten, counters);
}

/** dsh 0.1.1-rc.2's loop, silent drop included; reports whether the silent drop was reached. */
export function retainLikeDsh(input: RetentionInput, maxBytes: number): DshOutcome {
  let reachedSilentDrop = false;
  const shorten: Shortener = (item, over) => {
    const total = raw(item.originalText);
    const target = Math.max(0, raw(item.text) - over);
    if (total <= target) return { text: item.originalText, omitted: 0 };
    const best = searchLargest(
      target,
      (r) => dshCandidate(item.originalText, r),
      (c) => raw(c.text) <= target,
    );
    if (best !== undefined) return best;
    reachedSilentDrop = true;
    return { text: '', omitted: total };
  };
  const outcome = runRetention(input, maxBytes, shorten, undefined);
  return { ...outcome, reachedSilentDrop };
}
