/**
 * The message box with the `@` session picker (issue 18, Compose). A native `<textarea>` (role textbox, named
 * `Message`) holds the text; {@link Draft} keeps the atomic chips over it and a mirror behind the transparent textarea
 * paints them. Focus never leaves the textarea: the listbox `Session suggestions` below it is driven through
 * `aria-activedescendant`. Keys: ArrowUp/ArrowDown move (wrapping), Enter or a click picks, Escape closes, Shift+Enter
 * is a newline; nothing is intercepted while an IME composes.
 */
import type { JSX } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { WebCandidate } from '../../../src/protocol/web/web-api.js';
import { call, isAbort, WebApiError } from '../api/client.js';
import { formatTime } from '../format.js';
import {
  applyEdit,
  canonicalText,
  chipEndingAt,
  chipStartingAt,
  type Draft,
  type DraftChange,
  insertChip,
  pasteWithChips,
  rangeHasChip,
  removeChip,
  replaceRange,
} from './chip-model.js';
import { continuedMentionQuery, type MentionQuery, mentionQueryAt } from './mention-query.js';

/** How many suggestions one lookup asks for. */
const SUGGESTION_LIMIT = 10;

/** The open picker: the `@query` it serves and what the last lookup gave. */
interface Picker {
  readonly at: number;
  readonly query: string;
  readonly options: readonly WebCandidate[];
  readonly active: number;
  /** The person moved the highlight (ArrowUp/ArrowDown) since the options last changed. */
  readonly moved: boolean;
  readonly status: 'loading' | 'ready' | 'failed';
  readonly error?: string;
}

/** Props of {@link MessageBox}. */
export interface MessageBoxProps {
  /** The draft (controlled). */
  readonly draft: Draft;
  /** Called with every new draft. */
  readonly onDraft: (draft: Draft) => void;
  /** The target session lookups rank by (its cwd first) and exclude. */
  readonly target?: string;
  /** Ctrl/Cmd+Enter. */
  readonly onSubmit?: () => void;
}

function optionId(index: number): string {
  return `session-suggestion-${index}`;
}

function collapsedCaret(textarea: HTMLTextAreaElement): number | undefined {
  return textarea.selectionStart === textarea.selectionEnd ? textarea.selectionEnd : undefined;
}

/** The text with its chips painted, for the mirror behind the textarea. */
function Mirror({ draft }: { draft: Draft }): JSX.Element {
  const parts: JSX.Element[] = [];
  let at = 0;
  for (const chip of draft.chips) {
    parts.push(<span key={`t${chip.start}`}>{draft.text.slice(at, chip.start)}</span>);
    parts.push(
      <span key={`c${chip.start}`} class="chip-mark" data-mention={chip.mention}>
        {draft.text.slice(chip.start, chip.end)}
      </span>,
    );
    at = chip.end;
  }
  // The zero-width space keeps a trailing newline's line box, so the mirror is exactly as tall as the textarea text.
  parts.push(
    <span key="tail">
      {draft.text.slice(at)}
      {'\u200b'}
    </span>,
  );
  return <>{parts}</>;
}

/** The message box and its picker. */
export function MessageBox({ draft, onDraft, target, onSubmit }: MessageBoxProps): JSX.Element {
  const textarea = useRef<HTMLTextAreaElement>(null);
  const mirror = useRef<HTMLDivElement>(null);
  const draftRef = useRef(draft);
  draftRef.current = draft;
  const selectionBefore = useRef<[number, number]>([0, 0]);
  const pendingCaret = useRef<number | undefined>(undefined);
  const lookup = useRef<AbortController | undefined>(undefined);
  // The `@` an Escape dismissed: it stays closed while the caret is in that same `@query`.
  const dismissedAt = useRef<number | undefined>(undefined);
  // The caret right after a picked chip's own space, until the next input or caret move.
  const afterPick = useRef<number | undefined>(undefined);
  const [picker, setPicker] = useState<Picker | undefined>(undefined);
  // The picker as of the last change, read by key handlers and lookup replies between renders.
  const pickerRef = useRef(picker);
  function show(next: Picker | undefined): void {
    pickerRef.current = next;
    setPicker(next);
  }

  useLayoutEffect(() => {
    const box = textarea.current;
    if (box === null || pendingCaret.current === undefined) return;
    box.setSelectionRange(pendingCaret.current, pendingCaret.current);
    pendingCaret.current = undefined;
  });
  useEffect(() => () => lookup.current?.abort(), []);

  function close(): void {
    lookup.current?.abort();
    lookup.current = undefined;
    show(undefined);
  }

  /** Starts a new lookup for `mention` (aborting the last), or closes the picker when there is none. */
  function lookUp(mention: MentionQuery | undefined): void {
    if (mention === undefined || mention.at === dismissedAt.current) {
      if (mention === undefined) dismissedAt.current = undefined;
      if (pickerRef.current !== undefined) close();
      return;
    }
    lookup.current?.abort();
    const controller = new AbortController();
    lookup.current = controller;
    const previous = pickerRef.current;
    const same = previous !== undefined && previous.at === mention.at;
    // While the lookup runs, the last answer stays on screen and its highlight stays where it was.
    show({
      at: mention.at,
      query: mention.query,
      options: same ? previous.options : [],
      active: same ? previous.active : 0,
      moved: same ? previous.moved : false,
      status: 'loading',
    });
    const args =
      target === undefined ? { query: mention.query, limit: SUGGESTION_LIMIT } : { target, query: mention.query, limit: SUGGESTION_LIMIT };
    call('sessions/candidates', args, controller.signal).then(
      (options) => {
        if (controller.signal.aborted) return;
        // The first row is highlighted, unless the person moved the highlight to a session this answer still lists:
        // an answer arriving between ArrowDown and Enter must not change what Enter picks.
        const shown = pickerRef.current;
        const chosen = shown?.moved === true ? shown.options[shown.active]?.sessionId : undefined;
        const kept = chosen === undefined ? -1 : options.findIndex((option) => option.sessionId === chosen);
        show({ at: mention.at, query: mention.query, options, active: Math.max(kept, 0), moved: kept >= 0, status: 'ready' });
      },
      (error: unknown) => {
        if (controller.signal.aborted || isAbort(error)) return;
        const message = error instanceof WebApiError ? error.message : String(error);
        show({ at: mention.at, query: mention.query, options: [], active: 0, moved: false, status: 'failed', error: message });
      },
    );
  }

  /** The `@query` at the caret: a word, or more words while the open picker's query has not come back empty. */
  function queryAt(draft: Draft, caret: number | undefined): MentionQuery | undefined {
    const open = pickerRef.current;
    const word = mentionQueryAt(draft, caret);
    // Only an answer with no matches (or a failed lookup) ends it: a lookup still running must not, or fast typing
    // would cut the phrase at its first space.
    const noMatches = open !== undefined && open.options.length === 0 && open.status !== 'loading';
    if (word !== undefined || open === undefined || noMatches) return word;
    return continuedMentionQuery(draft, caret, open.at);
  }

  /** Re-checks the `@query` after the caret moved without an edit; looks up only when it changed. */
  function caretMoved(): void {
    const box = textarea.current;
    if (box === null) return;
    afterPick.current = undefined;
    const mention = queryAt(draftRef.current, collapsedCaret(box));
    const open = pickerRef.current;
    if (mention !== undefined && open !== undefined && open.at === mention.at && open.query === mention.query) return;
    if (mention === undefined && open === undefined) return;
    lookUp(mention);
  }

  function commit(change: DraftChange): void {
    pendingCaret.current = change.caret;
    draftRef.current = change.draft;
    onDraft(change.draft);
  }

  function pick(option: WebCandidate): void {
    const open = pickerRef.current;
    const box = textarea.current;
    if (open === undefined || box === null) return;
    const caret = box.selectionEnd;
    close();
    const change = insertChip(draftRef.current, open.at, Math.max(caret, open.at + 1 + open.query.length), option.label, option.mention);
    commit(change);
    // The chip brought its own space: a space typed right after it is that same space, not a second one.
    afterPick.current = change.caret;
    box.focus();
  }

  function onBeforeInput(event: InputEvent): void {
    const box = textarea.current;
    if (box === null) return;
    const pickedAt = afterPick.current;
    afterPick.current = undefined;
    if (
      pickedAt !== undefined &&
      event.inputType === 'insertText' &&
      event.data === ' ' &&
      box.selectionStart === pickedAt &&
      box.selectionEnd === pickedAt &&
      draftRef.current.text[pickedAt - 1] === ' '
    ) {
      event.preventDefault();
      return;
    }
    selectionBefore.current = [box.selectionStart, box.selectionEnd];
  }

  function onInput(event: JSX.TargetedEvent<HTMLTextAreaElement>): void {
    const box = event.currentTarget;
    const next = applyEdit(draftRef.current, box.value, selectionBefore.current, box.selectionEnd);
    draftRef.current = next;
    onDraft(next);
    selectionBefore.current = [box.selectionStart, box.selectionEnd];
    // Each keystroke is a new lookup (the last one is aborted), even when the query text came out the same.
    if ((event as unknown as InputEvent).isComposing) return;
    lookUp(queryAt(next, collapsedCaret(box)));
  }

  function onKeyDown(event: JSX.TargetedKeyboardEvent<HTMLTextAreaElement>): void {
    // An IME is composing: every key belongs to it.
    if (event.isComposing || event.keyCode === 229) return;
    const box = event.currentTarget;
    const open = pickerRef.current;
    if (open !== undefined) {
      const count = open.options.length;
      switch (event.key) {
        case 'ArrowDown':
        case 'ArrowUp':
          if (count === 0) break;
          event.preventDefault();
          show({ ...open, moved: true, active: (open.active + (event.key === 'ArrowDown' ? 1 : count - 1)) % count });
          return;
        case 'Enter':
          if (event.shiftKey || event.isComposing) break;
          if (count === 0) break;
          event.preventDefault();
          pick(open.options[open.active]!);
          return;
        case 'Escape':
          event.preventDefault();
          dismissedAt.current = open.at;
          close();
          return;
        default:
          break;
      }
    }
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && onSubmit !== undefined) {
      event.preventDefault();
      onSubmit();
      return;
    }
    const caret = collapsedCaret(box);
    if (caret === undefined || event.ctrlKey || event.altKey || event.metaKey) return;
    const chip =
      event.key === 'Backspace'
        ? chipEndingAt(draftRef.current, caret)
        : event.key === 'Delete'
          ? chipStartingAt(draftRef.current, caret)
          : undefined;
    if (chip === undefined) return;
    event.preventDefault();
    commit(removeChip(draftRef.current, chip));
    if (pickerRef.current !== undefined) close();
  }

  function onCopy(event: JSX.TargetedClipboardEvent<HTMLTextAreaElement>, cut: boolean): void {
    const box = event.currentTarget;
    const [from, to] = [box.selectionStart, box.selectionEnd];
    if (from === to || !rangeHasChip(draftRef.current, from, to) || event.clipboardData === null) return;
    event.preventDefault();
    event.clipboardData.setData('text/plain', canonicalText(draftRef.current, from, to));
    if (cut) commit(replaceRange(draftRef.current, from, to, ''));
  }

  function onPaste(event: JSX.TargetedClipboardEvent<HTMLTextAreaElement>): void {
    const box = event.currentTarget;
    const pasted = event.clipboardData?.getData('text/plain') ?? '';
    const change = pasteWithChips(draftRef.current, box.selectionStart, box.selectionEnd, pasted);
    if (change === undefined) return;
    event.preventDefault();
    commit(change);
    close();
  }

  const open = picker !== undefined;
  const hasOptions = picker !== undefined && picker.options.length > 0;
  return (
    <div class="message-box">
      <label class="field-label" for="message">
        Message
      </label>
      <div class="editor">
        <div class="editor-mirror" ref={mirror} aria-hidden="true">
          <Mirror draft={draft} />
        </div>
        <textarea
          id="message"
          ref={textarea}
          class="editor-input"
          rows={6}
          value={draft.text}
          spellcheck={false}
          placeholder="Type @ to reference another session"
          aria-autocomplete="list"
          aria-controls={hasOptions ? 'session-suggestions' : undefined}
          aria-activedescendant={hasOptions ? optionId(picker.active) : undefined}
          aria-describedby="message-help"
          onBeforeInput={(event) => onBeforeInput(event as unknown as InputEvent)}
          onInput={onInput}
          onKeyDown={onKeyDown}
          onKeyUp={(event) => {
            if (event.key.startsWith('Arrow') || event.key === 'Home' || event.key === 'End') caretMoved();
          }}
          onClick={caretMoved}
          onCompositionEnd={() =>
            lookUp(queryAt(draftRef.current, textarea.current === null ? undefined : collapsedCaret(textarea.current)))
          }
          onCopy={(event) => onCopy(event, false)}
          onCut={(event) => onCopy(event, true)}
          onPaste={onPaste}
          onScroll={(event) => {
            if (mirror.current !== null) mirror.current.scrollTop = event.currentTarget.scrollTop;
          }}
          onBlur={() => {
            if (pickerRef.current !== undefined) close();
          }}
        />
      </div>
      <p id="message-help" class="hint">
        @ picks a session · ↑↓ choose · Enter picks · Esc closes · Shift+Enter new line · Ctrl+Enter previews
      </p>
      {open && hasOptions ? (
        <div
          id="session-suggestions"
          class="suggestions"
          role="listbox"
          aria-label="Session suggestions"
          aria-busy={picker.status === 'loading'}
        >
          {picker.options.map((option, index) => (
            // biome-ignore lint/a11y/useKeyWithClickEvents: the keys of the options are the textarea's (aria-activedescendant): ArrowUp/Down and Enter.
            <div
              key={option.sessionId}
              id={optionId(index)}
              role="option"
              tabIndex={-1}
              aria-selected={index === picker.active}
              class={index === picker.active ? 'suggestion active' : 'suggestion'}
              data-session-id={option.sessionId}
              // Focus stays in the textarea: a mousedown would move it.
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => pick(option)}
            >
              <span class="suggestion-label">{option.label}</span>
              <span class="suggestion-meta">
                <span class="suggestion-cwd">{option.cwd ?? 'no project'}</span> · {formatTime(option.createdAt)}
              </span>
            </div>
          ))}
        </div>
      ) : null}
      {open && !hasOptions ? (
        <p class="suggestions-status" role="status">
          {picker.status === 'loading'
            ? 'Looking up sessions…'
            : picker.status === 'failed'
              ? `Session lookup failed: ${picker.error ?? ''}`
              : `No session matches “${picker.query}”.`}
        </p>
      ) : null}
    </div>
  );
}
