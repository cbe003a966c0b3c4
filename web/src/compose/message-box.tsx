/**
 * The message box with the `@` picker (issue 18, Compose; files and sessions in one source, issue 28). A native
 * `<textarea>` (role textbox, named `Message`) holds the text; {@link Draft} keeps the atomic chips over it and a
 * mirror behind the transparent textarea paints them. Focus never leaves the textarea: the listbox `Reference
 * suggestions`, opened at the caret, is driven through `aria-activedescendant`. An unquoted `@token` looks up files of
 * the target's cwd and sessions together, files first under a "File" heading, sessions under "Session"; each domain
 * that fails leaves the other's rows; an open `@"…` looks up files only. A file pick is an atomic `@path` chip, a
 * directory pick is editable `@dir/` text that keeps the menu open one level down. Keys: ArrowUp/ArrowDown move
 * (wrapping), Enter or a click picks, Escape closes, Shift+Enter is a newline; nothing is intercepted while an IME
 * composes.
 */
import type { JSX } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { WebCandidate, WebFileCandidate } from '../../../src/protocol/web/web-api.js';
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
import { fileMentionText } from './file-mention.js';
import { continuedMentionQuery, type MentionQuery, mentionQueryAt } from './mention-query.js';

/** How many suggestions one lookup asks for. */
const SUGGESTION_LIMIT = 10;

/** One row of the picker: a path of the target's cwd or a session. */
type PickerOption =
  | { readonly kind: 'file'; readonly key: string; readonly file: WebFileCandidate }
  | { readonly kind: 'session'; readonly key: string; readonly session: WebCandidate };

/** Where one domain's lookup is: `off` when the token does not ask it (a quoted path asks no sessions). */
type DomainStatus = 'off' | 'loading' | 'ready' | 'failed';

/** One domain of the open picker. */
interface Domain<T> {
  readonly rows: readonly T[];
  readonly status: DomainStatus;
  readonly error?: string;
}

/** The open picker: the `@query` it serves and what the last lookups gave. */
interface Picker {
  readonly at: number;
  readonly query: string;
  readonly quoted: boolean;
  readonly files: Domain<WebFileCandidate>;
  readonly sessions: Domain<WebCandidate>;
  readonly active: number;
  /** The person moved the highlight (ArrowUp/ArrowDown) since the options last changed. */
  readonly moved: boolean;
}

/** The rows in the order shown: files, then sessions. */
function optionsOf(picker: Picker): PickerOption[] {
  return [
    ...picker.files.rows.map((file): PickerOption => ({ kind: 'file', key: `file:${file.path}`, file })),
    ...picker.sessions.rows.map((session): PickerOption => ({ kind: 'session', key: `session:${session.sessionId}`, session })),
  ];
}

function loading(picker: Picker): boolean {
  return picker.files.status === 'loading' || picker.sessions.status === 'loading';
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
  return `reference-suggestion-${index}`;
}

function collapsedCaret(textarea: HTMLTextAreaElement): number | undefined {
  return textarea.selectionStart === textarea.selectionEnd ? textarea.selectionEnd : undefined;
}

/**
 * The text with its chips painted, for the mirror behind the textarea, and an empty mark where the open picker's `@`
 * is: the listbox opens under that mark, at the caret's line.
 */
function Mirror({ draft, anchorAt }: { draft: Draft; anchorAt: number | undefined }): JSX.Element {
  const parts: JSX.Element[] = [];
  let at = 0;
  const plain = (from: number, to: number): void => {
    if (anchorAt !== undefined && anchorAt >= from && anchorAt < to) {
      parts.push(<span key={`t${from}`}>{draft.text.slice(from, anchorAt)}</span>);
      parts.push(<span key="anchor" class="picker-anchor" />);
      parts.push(<span key={`u${anchorAt}`}>{draft.text.slice(anchorAt, to)}</span>);
    } else parts.push(<span key={`t${from}`}>{draft.text.slice(from, to)}</span>);
  };
  for (const chip of draft.chips) {
    plain(at, chip.start);
    parts.push(
      <span key={`c${chip.start}`} class={chip.kind === 'file' ? 'chip-mark chip-file' : 'chip-mark'} data-mention={chip.mention}>
        {draft.text.slice(chip.start, chip.end)}
      </span>,
    );
    at = chip.end;
  }
  if (anchorAt !== undefined && anchorAt >= at) {
    plain(at, anchorAt);
    parts.push(<span key="anchor" class="picker-anchor" />);
    at = anchorAt;
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
  const editor = useRef<HTMLDivElement>(null);
  const pickerBox = useRef<HTMLDivElement>(null);
  // Where the picker opens: under the `@` being typed, inside the editor, kept within its width.
  const [pickerPlace, setPickerPlace] = useState<{ top: number; left: number } | undefined>(undefined);
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

  /** Measures the mirror's mark at the open `@` and puts the picker under its line. */
  function placePicker(): void {
    const anchor = mirror.current?.querySelector<HTMLElement>('.picker-anchor');
    const box = editor.current;
    if (anchor === null || anchor === undefined || box === null || mirror.current === null) {
      setPickerPlace(undefined);
      return;
    }
    const lineHeight = Number.parseFloat(getComputedStyle(mirror.current).lineHeight) || 20;
    const width = pickerBox.current?.offsetWidth ?? 0;
    const top = anchor.offsetTop - mirror.current.scrollTop + lineHeight + 4;
    const left = Math.max(0, Math.min(anchor.offsetLeft, box.clientWidth - width));
    setPickerPlace((last) => (last !== undefined && last.top === top && last.left === left ? last : { top, left }));
  }
  useLayoutEffect(() => {
    if (picker !== undefined) placePicker();
  });

  function close(): void {
    lookup.current?.abort();
    lookup.current = undefined;
    show(undefined);
  }

  /** Starts new lookups for `mention` (aborting the last), or closes the picker when there is none. */
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
    // A quoted path asks files only; an unquoted token with a space (a session title) asks sessions only, as a path
    // with spaces needs quotes; without a target there is no cwd to ask.
    const asksFiles = target !== undefined && (mention.quoted || !/\s/u.test(mention.query));
    const asksSessions = !mention.quoted;
    const domain = <T,>(asked: boolean, kept: Domain<T> | undefined): Domain<T> =>
      asked ? { rows: kept?.rows ?? [], status: 'loading' } : { rows: [], status: 'off' };
    // While the lookups run, the last answers stay on screen and the highlight stays where it was.
    show({
      at: mention.at,
      query: mention.query,
      quoted: mention.quoted,
      files: domain(asksFiles, same ? previous.files : undefined),
      sessions: domain(asksSessions, same ? previous.sessions : undefined),
      active: same ? previous.active : 0,
      moved: same ? previous.moved : false,
    });
    /** Puts one domain's answer in, keeping the highlighted row when the person had moved to one still listed. */
    const settle = (change: (open: Picker) => Picker): void => {
      const shown = pickerRef.current;
      if (controller.signal.aborted || shown === undefined) return;
      const chosen = shown.moved ? optionsOf(shown)[shown.active]?.key : undefined;
      const next = change(shown);
      const kept = chosen === undefined ? -1 : optionsOf(next).findIndex((option) => option.key === chosen);
      show({ ...next, active: Math.max(kept, 0), moved: kept >= 0 });
    };
    const failure = (error: unknown): string | undefined => {
      if (controller.signal.aborted || isAbort(error)) return undefined;
      return error instanceof WebApiError ? error.message : String(error);
    };
    if (asksFiles && target !== undefined) {
      call('files/candidates', { target, query: mention.query }, controller.signal).then(
        (value) =>
          settle((open) => ({
            ...open,
            files:
              value.unavailable === undefined
                ? { rows: value.files, status: 'ready' }
                : // A cwd that is not on this machine (a session written elsewhere) just has no files to offer.
                  value.unavailable.code === 'FILE_INDEX_CWD_MISSING'
                  ? { rows: [], status: 'ready' }
                  : { rows: [], status: 'failed', error: value.unavailable.message },
          })),
        (error: unknown) => {
          const message = failure(error);
          if (message !== undefined) settle((open) => ({ ...open, files: { rows: [], status: 'failed', error: message } }));
        },
      );
    }
    if (asksSessions) {
      const args =
        target === undefined
          ? { query: mention.query, limit: SUGGESTION_LIMIT }
          : { target, query: mention.query, limit: SUGGESTION_LIMIT };
      call('sessions/candidates', args, controller.signal).then(
        (options) => settle((open) => ({ ...open, sessions: { rows: options, status: 'ready' } })),
        (error: unknown) => {
          const message = failure(error);
          if (message !== undefined) settle((open) => ({ ...open, sessions: { rows: [], status: 'failed', error: message } }));
        },
      );
    }
  }

  /** The `@query` at the caret: a word, or more words while the open picker's query has not come back empty. */
  function queryAt(draft: Draft, caret: number | undefined): MentionQuery | undefined {
    const open = pickerRef.current;
    const word = mentionQueryAt(draft, caret);
    // Only answers with no matches (or failed lookups) end it: a lookup still running must not, or fast typing
    // would cut the phrase at its first space.
    const noMatches = open !== undefined && optionsOf(open).length === 0 && !loading(open);
    if (word !== undefined || open === undefined || open.quoted || noMatches) return word;
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

  function pick(option: PickerOption): void {
    const open = pickerRef.current;
    const box = textarea.current;
    if (open === undefined || box === null) return;
    const caret = box.selectionEnd;
    // The `@query` typed so far: from its `@` to the caret (or the end of what the picker was asked).
    const to = Math.max(caret, open.at + (open.quoted ? 2 : 1) + open.query.length);
    if (option.kind === 'file' && option.file.kind === 'directory') {
      const text = fileMentionText(option.file, open.quoted);
      if (text === undefined) return;
      // A directory stays text the person can edit, and the menu goes on one level down.
      const change = replaceRange(draftRef.current, open.at, to, text);
      commit(change);
      box.focus();
      lookUp(mentionQueryAt(change.draft, change.caret));
      return;
    }
    close();
    let change: DraftChange;
    if (option.kind === 'file') {
      const text = fileMentionText(option.file, open.quoted);
      if (text === undefined) return;
      change = insertChip(draftRef.current, open.at, to, text.slice(1), text, 'file');
    } else {
      change = insertChip(draftRef.current, open.at, to, option.session.label, option.session.mention);
    }
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
      const options = optionsOf(open);
      const count = options.length;
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
          pick(options[open.active]!);
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

  const options = picker === undefined ? [] : optionsOf(picker);
  const hasOptions = options.length > 0;
  const fileCount = picker?.files.rows.length ?? 0;
  return (
    <div class="message-box">
      <label class="field-label" for="message">
        Message
      </label>
      <div class="editor" ref={editor}>
        <div class="editor-mirror" ref={mirror} aria-hidden="true">
          <Mirror draft={draft} anchorAt={picker?.at} />
        </div>
        <textarea
          id="message"
          ref={textarea}
          class="editor-input"
          rows={6}
          value={draft.text}
          spellcheck={false}
          placeholder="Type @ to reference a file or another session"
          aria-autocomplete="list"
          aria-controls={hasOptions ? 'reference-suggestions' : undefined}
          aria-activedescendant={hasOptions && picker !== undefined ? optionId(picker.active) : undefined}
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
            placePicker();
          }}
          onBlur={() => {
            if (pickerRef.current !== undefined) close();
          }}
        />
        {picker !== undefined ? (
          <div
            class="picker"
            ref={pickerBox}
            style={pickerPlace === undefined ? undefined : { top: `${pickerPlace.top}px`, left: `${pickerPlace.left}px` }}
          >
            {hasOptions ? (
              <div
                id="reference-suggestions"
                class="suggestions"
                role="listbox"
                aria-label="Reference suggestions"
                aria-busy={loading(picker)}
              >
                {fileCount > 0 ? (
                  // biome-ignore lint/a11y/useSemanticElements: a listbox may hold groups of options, not a fieldset.
                  <div role="group" aria-labelledby="suggestions-heading-file" class="suggestion-group">
                    <div id="suggestions-heading-file" role="presentation" class="suggestion-heading">
                      File
                    </div>
                    {options.slice(0, fileCount).map((option, index) => (
                      <OptionRow key={option.key} option={option} index={index} active={index === picker.active} onPick={pick} />
                    ))}
                  </div>
                ) : null}
                {options.length > fileCount ? (
                  // biome-ignore lint/a11y/useSemanticElements: a listbox may hold groups of options, not a fieldset.
                  <div role="group" aria-labelledby="suggestions-heading-session" class="suggestion-group">
                    <div id="suggestions-heading-session" role="presentation" class="suggestion-heading">
                      Session
                    </div>
                    {options.slice(fileCount).map((option, offset) => (
                      <OptionRow
                        key={option.key}
                        option={option}
                        index={fileCount + offset}
                        active={fileCount + offset === picker.active}
                        onPick={pick}
                      />
                    ))}
                  </div>
                ) : null}
              </div>
            ) : (
              <p class="suggestions-status" role="status">
                {emptyStatus(picker)}
              </p>
            )}
            {hasOptions && picker.files.status === 'failed' ? (
              <p class="suggestions-note" data-domain="file">
                Files unavailable: {picker.files.error ?? ''}
              </p>
            ) : null}
            {hasOptions && picker.sessions.status === 'failed' ? (
              <p class="suggestions-note" data-domain="session">
                Session lookup failed: {picker.sessions.error ?? ''}
              </p>
            ) : null}
          </div>
        ) : null}
      </div>
      <p id="message-help" class="hint">
        @ picks a file or a session · ↑↓ choose · Enter picks · Esc closes · Shift+Enter new line · Ctrl+Enter previews
      </p>
    </div>
  );
}

/** What the picker says while it has no rows. */
function emptyStatus(picker: Picker): string {
  if (loading(picker)) return picker.quoted ? 'Looking up files…' : 'Looking up files and sessions…';
  const failures = [
    picker.files.status === 'failed' ? `Files unavailable: ${picker.files.error ?? ''}` : '',
    picker.sessions.status === 'failed' ? `Session lookup failed: ${picker.sessions.error ?? ''}` : '',
  ].filter((line) => line !== '');
  if (failures.length > 0) return failures.join(' · ');
  if (picker.quoted) return `No file matches “${picker.query}”.`;
  return picker.files.status === 'off' ? `No session matches “${picker.query}”.` : `No file or session matches “${picker.query}”.`;
}

/** One selectable row: a file or folder of the cwd, or a session. */
function OptionRow({
  option,
  index,
  active,
  onPick,
}: {
  option: PickerOption;
  index: number;
  active: boolean;
  onPick: (option: PickerOption) => void;
}): JSX.Element {
  const common = {
    id: optionId(index),
    role: 'option',
    tabIndex: -1,
    'aria-selected': active,
    class: active ? 'suggestion active' : 'suggestion',
    // Focus stays in the textarea: a mousedown would move it.
    onMouseDown: (event: MouseEvent) => event.preventDefault(),
    onClick: () => onPick(option),
  } as const;
  // The keys of the options are the textarea's (aria-activedescendant): ArrowUp/Down and Enter.
  if (option.kind === 'file') {
    const { file } = option;
    const slash = file.path.lastIndexOf('/');
    return (
      <div {...common} data-path={file.path} data-kind={file.kind}>
        <span class={`glyph glyph-${file.kind}`} aria-hidden="true" />
        <span class="suggestion-label">
          {file.path.slice(slash + 1)}
          {file.kind === 'directory' ? '/' : ''}
        </span>
        <span class="suggestion-meta">
          <span class="suggestion-cwd">{slash < 0 ? './' : file.path.slice(0, slash + 1)}</span> ·{' '}
          {file.kind === 'directory' ? 'folder' : 'file'}
        </span>
      </div>
    );
  }
  const { session } = option;
  return (
    <div {...common} data-session-id={session.sessionId}>
      <span class="glyph glyph-session" aria-hidden="true" />
      <span class="suggestion-label">{session.label}</span>
      <span class="suggestion-meta">
        <span class="suggestion-cwd">{session.cwd ?? 'no project'}</span> · {formatTime(session.createdAt)}
      </span>
    </div>
  );
}
