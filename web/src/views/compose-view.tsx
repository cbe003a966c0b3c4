/**
 * Compose (issue 18): a message with `@` session chips, its Preview (`references/prepare`: exactly what the model
 * would receive) and "Copy for another agent" (the prepared message and snapshot on the clipboard).
 */
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { WebPreview, WebSessionRow } from '../../../src/protocol/web/web-api.js';
import { call, isAbort, WebApiError } from '../api/client.js';
import { canonicalText, type Draft, EMPTY_DRAFT } from '../compose/chip-model.js';
import { errorWords } from '../compose/error-words.js';
import { MessageBox } from '../compose/message-box.js';
import { SessionChooser } from '../compose/session-chooser.js';
import { applyCorpusChange, catchUpListing } from '../live/apply-change.js';
import { corpusFeed } from '../live/corpus-feed.js';
import { useCorpusFeed } from '../live/use-corpus-feed.js';
import { clipboardText, PreviewPanel } from '../compose/preview-panel.js';
import { hrefOf } from '../router.js';

/** The Preview's state. */
type PreviewState =
  | { readonly kind: 'none' }
  | { readonly kind: 'loading' }
  | { readonly kind: 'ready'; readonly preview: WebPreview; readonly message: string }
  | { readonly kind: 'failed'; readonly code: string; readonly message: string };

/** The Compose view; `target` is the session the message is written in (none: a new conversation). */
export function ComposeView({ target }: { target?: string }): JSX.Element {
  const [draft, setDraft] = useState<Draft>(EMPTY_DRAFT);
  const [preview, setPreview] = useState<PreviewState>({ kind: 'none' });
  const [copied, setCopied] = useState<string>('');
  const [sessions, setSessions] = useState<readonly WebSessionRow[]>([]);
  const running = useRef<AbortController | undefined>(undefined);

  useEffect(() => {
    const controller = new AbortController();
    call('sessions/list', {}, controller.signal).then(
      (value) => setSessions(catchUpListing(value.sessions, value.revision, corpusFeed.recent)),
      (error: unknown) => {
        // The target picker is a convenience: without the list it offers only the current target.
        if (!isAbort(error)) setSessions([]);
      },
    );
    return () => controller.abort();
  }, []);
  useEffect(() => () => running.current?.abort(), []);
  // The chooser follows the corpus: sessions written, retitled or removed meanwhile (a reset keeps the list it has).
  useCorpusFeed((event) => {
    if (event.kind === 'change') setSessions((shown) => applyCorpusChange(shown, event.change));
  });

  async function runPreview(): Promise<WebPreview | undefined> {
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    const message = canonicalText(draft);
    setPreview({ kind: 'loading' });
    setCopied('');
    try {
      const value = await call(
        'references/prepare',
        target === undefined ? { content: message } : { target, content: message },
        controller.signal,
      );
      setPreview({ kind: 'ready', preview: value, message });
      return value;
    } catch (error) {
      if (isAbort(error)) return undefined;
      const failure = error instanceof WebApiError ? error : new WebApiError('WEB_PAGE_ERROR', String(error));
      setPreview({ kind: 'failed', code: failure.code, message: failure.message });
      return undefined;
    }
  }

  async function copyForAgent(): Promise<void> {
    const message = canonicalText(draft);
    const ready = preview.kind === 'ready' && preview.message === message ? preview.preview : await runPreview();
    if (ready === undefined) return;
    try {
      await navigator.clipboard.writeText(clipboardText(ready));
      setCopied('Copied the prepared message and its snapshot.');
    } catch (error) {
      setCopied(`Could not write to the clipboard: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  const empty = draft.text.trim() === '';
  return (
    <main class="view compose-view" aria-labelledby="compose-heading">
      <h1 id="compose-heading">Compose</h1>
      <p class="target-line">
        <label for="target">Written in</label>{' '}
        <SessionChooser
          id="target"
          sessions={sessions}
          value={target}
          onChoose={(sessionId) => {
            location.hash = hrefOf(sessionId === undefined ? { view: 'compose' } : { view: 'compose', target: sessionId });
          }}
        />
      </p>
      <MessageBox draft={draft} onDraft={setDraft} target={target} onSubmit={() => void runPreview()} />
      <div class="actions">
        <button type="button" onClick={() => void runPreview()} disabled={empty}>
          Preview
        </button>
        <button type="button" onClick={() => void copyForAgent()} disabled={empty}>
          Copy for another agent
        </button>
        <span class="copy-status" role="status">
          {copied}
        </span>
      </div>
      {preview.kind === 'loading' ? <p role="status">Preparing…</p> : null}
      {preview.kind === 'failed' ? (
        <div class="error" role="alert" data-code={preview.code}>
          <p class="error-words">{errorWords(preview.code)}</p>
          <p class="error-detail">
            {preview.message} <code>{preview.code}</code>
          </p>
        </div>
      ) : null}
      {preview.kind === 'ready' ? <PreviewPanel preview={preview.preview} /> : null}
    </main>
  );
}
