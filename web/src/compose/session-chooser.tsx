/**
 * "Written in" (issue 28 item 5): a searchable chooser of the session a message is written in, instead of a native
 * `<select>` with one option per session. The ARIA 1.2 combobox pattern: a text field (`role="combobox"`, labelled by
 * its `<label>`) with a listbox of matches; typing filters titles, ids and projects (every word must match, in any
 * order), ArrowDown/ArrowUp move through the matches (wrapping), Enter or a click picks, Escape closes and puts back
 * the current choice. At most {@link SHOWN_OPTIONS} matches are listed (a count says how many more match), so 10,000
 * sessions never make 10,000 DOM nodes. The first option is always "a new conversation".
 */
import type { JSX } from 'preact';
import { useMemo, useRef, useState } from 'preact/hooks';
import type { WebSessionRow } from '../../../src/protocol/web/web-api.js';
import { plural } from '../format.js';

/** How many matches the listbox shows at most. */
const SHOWN_OPTIONS = 50;
/** The words of the option that stands for no session. */
const NEW_CONVERSATION = 'a new conversation';

/** One option: a session, or `undefined` for a new conversation. */
interface ChooserOption {
  readonly sessionId: string | undefined;
  readonly label: string;
  readonly cwd?: string;
}

/** What the chooser shows and tells. */
export interface SessionChooserProps {
  /** The input's id (its `<label for>` names it). */
  readonly id: string;
  /** The sessions to choose from, in listing order. */
  readonly sessions: readonly WebSessionRow[];
  /** The chosen session (`undefined`: a new conversation). */
  readonly value: string | undefined;
  /** Called with the pick (`undefined`: a new conversation). */
  readonly onChoose: (sessionId: string | undefined) => void;
}

/**
 * The options matching `query`: every whitespace-separated word, case-insensitively, in the title, id or project.
 *
 * @param sessions the sessions in listing order
 * @param query what was typed
 * @returns the matches (without the new-conversation option)
 */
function matching(sessions: readonly WebSessionRow[], query: string): WebSessionRow[] {
  const words = query
    .toLocaleLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '');
  if (words.length === 0) return [...sessions];
  return sessions.filter((row) => {
    const text = `${row.label}\n${row.sessionId}\n${row.cwd ?? ''}`.toLocaleLowerCase();
    return words.every((word) => text.includes(word));
  });
}

/** The searchable session chooser. */
export function SessionChooser({ id, sessions, value, onChoose }: SessionChooserProps): JSX.Element {
  const current = value === undefined ? undefined : sessions.find((row) => row.sessionId === value);
  const currentLabel = value === undefined ? NEW_CONVERSATION : (current?.label ?? value);
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);

  const found = useMemo(() => (open ? matching(sessions, query) : []), [open, sessions, query]);
  const options: ChooserOption[] = useMemo(() => {
    const shown: ChooserOption[] = found
      .slice(0, SHOWN_OPTIONS)
      .map((row) => ({ sessionId: row.sessionId, label: row.label, ...(row.cwd === undefined ? {} : { cwd: row.cwd }) }));
    return query.trim() === '' ? [{ sessionId: undefined, label: NEW_CONVERSATION }, ...shown] : shown;
  }, [found, query]);
  const more = found.length - Math.min(found.length, SHOWN_OPTIONS);
  const listId = `${id}-options`;
  const optionId = (index: number): string => `${id}-option-${index}`;

  function openWith(text: string): void {
    setOpen(true);
    setQuery(text);
    setActive(0);
  }
  function close(): void {
    setOpen(false);
    setQuery('');
  }
  function choose(option: ChooserOption | undefined): void {
    close();
    if (option !== undefined && option.sessionId !== value) onChoose(option.sessionId);
  }
  function onKeyDown(event: KeyboardEvent): void {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (!open) {
        openWith('');
        return;
      }
      if (options.length === 0) return;
      const step = event.key === 'ArrowDown' ? 1 : -1;
      const next = (active + step + options.length) % options.length;
      setActive(next);
      document.getElementById(optionId(next))?.scrollIntoView({ block: 'nearest' });
    } else if (event.key === 'Enter') {
      if (!open) return;
      event.preventDefault();
      choose(options[active]);
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      close();
    }
  }

  return (
    <span class="session-chooser">
      <input
        id={id}
        ref={input}
        type="text"
        role="combobox"
        autocomplete="off"
        spellcheck={false}
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={open && options.length > 0 ? optionId(active) : undefined}
        placeholder="Type to find a session"
        value={open ? query : currentLabel}
        title={currentLabel}
        onFocus={() => {
          if (!open) openWith('');
        }}
        onClick={() => {
          if (!open) openWith('');
        }}
        onInput={(event) => openWith(event.currentTarget.value)}
        onKeyDown={onKeyDown}
        onBlur={close}
      />
      {open ? (
        <div class="chooser-popup">
          <div class="chooser-options" id={listId} role="listbox" aria-label="Sessions to write in">
            {options.map((option, index) => (
              // biome-ignore lint/a11y/useKeyWithClickEvents: the options' keys are the input's (aria-activedescendant): ArrowUp/Down and Enter.
              <div
                key={option.sessionId ?? ''}
                id={optionId(index)}
                role="option"
                tabIndex={-1}
                class="chooser-option"
                aria-selected={index === active}
                data-session-id={option.sessionId ?? ''}
                // Focus stays in the input: a mousedown would move it (and its blur close the list).
                onMouseDown={(event) => event.preventDefault()}
                onClick={() => choose(option)}
              >
                {option.label}
                {option.cwd === undefined ? null : <span class="chooser-cwd">{option.cwd}</span>}
              </div>
            ))}
          </div>
          {options.length === 0 ? <p class="chooser-more">No session matches.</p> : null}
          {more > 0 ? <p class="chooser-more">{plural(more, 'more session matches', 'more sessions match')}: type more words</p> : null}
        </div>
      ) : null}
    </span>
  );
}
