/**
 * The message box's model (issue 18, Compose): the textarea's plain text plus atomic session chips over it. A chip is
 * a range `[start, end)` of the text that shows `@<label>` and stands for its canonical mention
 * `@[label](dsh-session:…)`. The textarea keeps role textbox and native editing; this model decides what an edit
 * does to chips: an edit inside a chip turns it into text, an edit before it moves it, Backspace at its end and Delete
 * at its start remove it whole, and copying a selection copies the canonical mentions of the chips inside it.
 * Pure functions over immutable values, so every rule is one small function.
 */

/** One atomic chip over the text. */
export interface Chip {
  /** Index of its `@` in the text. */
  readonly start: number;
  /** Index just past its label. */
  readonly end: number;
  /** The label it shows (after `@`). */
  readonly label: string;
  /** The canonical mention it stands for (a file's is its own text: `@path`). */
  readonly mention: string;
  /** A cited session (the default) or a file of the target's cwd (issue 28). */
  readonly kind?: 'session' | 'file';
}

/** The text and its chips, sorted by `start`, never overlapping, each showing exactly `@<label>`. */
export interface Draft {
  readonly text: string;
  readonly chips: readonly Chip[];
}

/** A draft and where the caret goes after an operation. */
export interface DraftChange {
  readonly draft: Draft;
  readonly caret: number;
}

/** The empty draft. */
export const EMPTY_DRAFT: Draft = { text: '', chips: [] };

/**
 * What a chip shows.
 *
 * @param label the candidate's label
 */
export function chipText(label: string): string {
  return `@${label}`;
}

function shows(text: string, chip: Chip): boolean {
  return text.slice(chip.start, chip.end) === chipText(chip.label);
}

/**
 * The draft after the browser edited the text natively (typing, deleting, pasting, IME).
 *
 * The edit is located from the selection just before it and the caret just after it; when those do not explain the
 * change (undo, drag and drop), the common prefix and suffix of the two texts do. Chips wholly before the edit stay,
 * chips wholly after it move, a chip the edit removed entirely goes, and a chip the edit touched inside becomes text.
 *
 * @param before the draft before the edit
 * @param text the textarea's text after it
 * @param selectionBefore the selection `[start, end)` just before the edit
 * @param caretAfter the caret just after it
 */
export function applyEdit(before: Draft, text: string, selectionBefore: readonly [number, number], caretAfter: number): Draft {
  if (text === before.text) return before;
  const [from, to] = locateEdit(before.text, text, selectionBefore, caretAfter);
  const delta = text.length - before.text.length;
  const chips: Chip[] = [];
  for (const chip of before.chips) {
    if (chip.end <= from) {
      chips.push(chip);
    } else if (chip.start >= to) {
      chips.push({ ...chip, start: chip.start + delta, end: chip.end + delta });
    }
    // Otherwise the edit overlapped the chip: removed with the selection, or typed into, it is now plain text.
  }
  return { text, chips: chips.filter((chip) => shows(text, chip)) };
}

/** The replaced range `[from, to)` of the old text. */
function locateEdit(old: string, text: string, [selStart]: readonly [number, number], caret: number): [number, number] {
  const from = Math.min(selStart, caret);
  const inserted = Math.max(0, caret - from);
  const to = from + (old.length - text.length) + inserted;
  if (to >= from && to <= old.length && text.slice(0, from) === old.slice(0, from) && text.slice(from + inserted) === old.slice(to))
    return [from, to];
  let prefix = 0;
  const limit = Math.min(old.length, text.length);
  while (prefix < limit && old[prefix] === text[prefix]) prefix += 1;
  let suffix = 0;
  while (suffix < limit - prefix && old[old.length - 1 - suffix] === text[text.length - 1 - suffix]) suffix += 1;
  return [prefix, old.length - suffix];
}

/**
 * The chip a Backspace at `caret` removes: the one that ends there.
 *
 * @param draft the draft
 * @param caret a collapsed caret
 */
export function chipEndingAt(draft: Draft, caret: number): Chip | undefined {
  return draft.chips.find((chip) => chip.end === caret);
}

/**
 * The chip a Delete at `caret` removes: the one that starts there.
 *
 * @param draft the draft
 * @param caret a collapsed caret
 */
export function chipStartingAt(draft: Draft, caret: number): Chip | undefined {
  return draft.chips.find((chip) => chip.start === caret);
}

/**
 * Replaces `[from, to)` of the text by `insert` (plain text), with the chip rules of {@link applyEdit}.
 *
 * @param draft the draft
 * @param from start of the replaced range
 * @param to end of the replaced range
 * @param insert the new text
 */
export function replaceRange(draft: Draft, from: number, to: number, insert: string): DraftChange {
  const text = draft.text.slice(0, from) + insert + draft.text.slice(to);
  return { draft: applyEdit(draft, text, [from, to], from + insert.length), caret: from + insert.length };
}

/**
 * Removes a chip whole.
 *
 * @param draft the draft
 * @param chip one of its chips
 */
export function removeChip(draft: Draft, chip: Chip): DraftChange {
  return replaceRange(draft, chip.start, chip.end, '');
}

/**
 * Puts a chip in place of `[from, to)` (the `@query` being typed), followed by a space unless whitespace follows.
 *
 * @param draft the draft
 * @param from the `@` of the query
 * @param to the caret
 * @param label the picked candidate's label
 * @param mention its canonical mention
 * @param kind a session (default) or a file
 */
export function insertChip(
  draft: Draft,
  from: number,
  to: number,
  label: string,
  mention: string,
  kind: 'session' | 'file' = 'session',
): DraftChange {
  const shown = chipText(label);
  const after = draft.text.slice(to);
  const spacer = /^\s/.test(after) ? '' : ' ';
  const { draft: replaced } = replaceRange(draft, from, to, shown + spacer);
  const chip: Chip = { start: from, end: from + shown.length, label, mention, ...(kind === 'file' ? { kind } : {}) };
  const chips = [...replaced.chips, chip].sort((a, b) => a.start - b.start);
  return { draft: { text: replaced.text, chips }, caret: from + shown.length + (spacer === '' ? 1 : spacer.length) };
}

/**
 * The canonical text of `[from, to)`: each chip wholly inside becomes its mention; a partly selected chip gives its
 * selected characters as plain text. The whole draft's canonical text is the message the server prepares.
 *
 * @param draft the draft
 * @param from start (default 0)
 * @param to end (default the text's length)
 */
export function canonicalText(draft: Draft, from = 0, to = draft.text.length): string {
  let out = '';
  let at = from;
  for (const chip of draft.chips) {
    if (chip.start < from || chip.end > to) continue;
    out += draft.text.slice(at, chip.start) + chip.mention;
    at = chip.end;
  }
  return out + draft.text.slice(at, to);
}

/** True when the range `[from, to)` contains a chip whole (so copying it differs from the plain text). */
export function rangeHasChip(draft: Draft, from: number, to: number): boolean {
  return draft.chips.some((chip) => chip.start >= from && chip.end <= to);
}

// An explicit mention as SESSION-REFERENCE.md §5 spells it: `@[label](dsh-session:…)`, label atoms `\` + one code
// point that is not a line terminator, or any code point but `\` and `]`.
const EXPLICIT_MENTION = /@\[((?:\\[^\n\r\u2028\u2029]|[^\\\]])*)\]\((dsh-session:[^\s)]*)\)/gu;

/**
 * Pasted text with its explicit mentions turned back into chips (copying a chip selection and pasting it restores the
 * chips). Labels are unescaped as the parser unescapes them.
 *
 * @param draft the draft
 * @param from start of the replaced selection
 * @param to end of the replaced selection
 * @param pasted the clipboard's text
 * @returns the change, or `undefined` when the text holds no mention (then the browser pastes natively)
 */
export function pasteWithChips(draft: Draft, from: number, to: number, pasted: string): DraftChange | undefined {
  const matches = [...pasted.matchAll(EXPLICIT_MENTION)];
  if (matches.length === 0) return undefined;
  let change = replaceRange(draft, from, to, '');
  let at = 0;
  let caret = from;
  for (const match of matches) {
    const index = match.index ?? 0;
    change = replaceRange(change.draft, caret, caret, pasted.slice(at, index));
    caret = change.caret;
    const label = (match[1] ?? '').replace(/\\(.)/gsu, '$1');
    const shown = chipText(label);
    const { draft: withText } = replaceRange(change.draft, caret, caret, shown);
    const chip: Chip = { start: caret, end: caret + shown.length, label, mention: match[0] };
    change = { draft: { text: withText.text, chips: [...withText.chips, chip].sort((a, b) => a.start - b.start) }, caret: chip.end };
    caret = chip.end;
    at = index + match[0].length;
  }
  return replaceRange(change.draft, caret, caret, pasted.slice(at));
}
