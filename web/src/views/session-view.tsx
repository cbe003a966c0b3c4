/**
 * Session (issue 18): the current surface as a conversation — user and assistant bubbles, compaction checkpoints as
 * cards, tool calls, results and reasoning collapsed — with each session-reference context attached to its user
 * message: chips (links to the cited session) and `Referenced session · <labels>` on the bubble, `Session recall ·
 * <labels>` as a collapsed row that opens to a per-source summary and the framed JSON in a bounded block. The "Whole
 * log" switch (issue 28) shows every message the session ever had, each replaced one marked with what replaced it,
 * and each compaction with the messages it replaced.
 */
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { WebReplacement, WebSessionLog, WebSurface, WebTranscriptItem } from '../../../src/protocol/web/web-api.js';
import { call, isAbort } from '../api/client.js';
import { formatTime, isoTime } from '../format.js';
import { MarkdownText, markdownReady } from '../markdown/markdown-text.js';
import { type ConversationRow, conversationRows, joinedLabels, LABEL_JOINER, type RecallItem, type UserItem } from '../replay/associate.js';
import { hrefOf } from '../router.js';
import { scrolledToEnd, useSessionChanges } from '../live/use-session-changes.js';

/**
 * The conversation row a message anchor lands on: the first row of that seq, else (the message was compacted away
 * or is not shown) the first row after it.
 */
function anchorRow(list: HTMLElement, seq: number): HTMLElement | undefined {
  const rows = [...list.querySelectorAll<HTMLElement>('.conversation-row')];
  return rows.find((row) => Number(row.dataset['seq']) === seq) ?? rows.find((row) => Number(row.dataset['seq']) > seq);
}

/** The Session view of one session, scrolled to the message `seq` (a search hit's) when given. */
export function SessionView({ sessionId, seq }: { sessionId: string; seq?: number }): JSX.Element {
  const [surface, setSurface] = useState<WebSurface | undefined>(undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  useEffect(() => {
    const controller = new AbortController();
    setSurface(undefined);
    setFailure(undefined);
    call('sessions/surface', { sessionId }, controller.signal).then(setSurface, (error: unknown) => {
      if (!isAbort(error)) setFailure(error instanceof Error ? error.message : String(error));
    });
    return () => controller.abort();
  }, [sessionId]);

  // The whole log, fetched the first time the switch is turned on.
  const [whole, setWhole] = useState(false);
  const [log, setLog] = useState<WebSessionLog | undefined>(undefined);
  const [logFailure, setLogFailure] = useState<string | undefined>(undefined);
  useEffect(() => {
    setWhole(false);
    setLog(undefined);
    setLogFailure(undefined);
  }, [sessionId]);
  useEffect(() => {
    if (!whole || log !== undefined) return;
    const controller = new AbortController();
    call('sessions/log', { sessionId }, controller.signal).then(setLog, (error: unknown) => {
      if (!isAbort(error)) setLogFailure(error instanceof Error ? error.message : String(error));
    });
    return () => controller.abort();
  }, [whole, log, sessionId]);
  const shown = whole ? log : surface;

  // Live (issue 28 item 2): a changed session is read again in place; a reader at the end follows new messages.
  const [removed, setRemoved] = useState(false);
  const rereading = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => rereading.current?.abort(), []);
  useEffect(() => setRemoved(false), [sessionId]);
  useSessionChanges(sessionId, {
    changed() {
      rereading.current?.abort();
      const controller = new AbortController();
      rereading.current = controller;
      call('sessions/surface', { sessionId }, controller.signal).then(
        (next) => {
          const follow = scrolledToEnd();
          setSurface(next);
          setRemoved(false);
          // The whole log is read again the next time it is shown (now, if it is).
          setLog(undefined);
          if (follow) requestAnimationFrame(() => scrollTo({ top: document.documentElement.scrollHeight }));
        },
        // The surface shown stays; the next change tries again.
        () => undefined,
      );
    },
    removed: () => setRemoved(true),
  });

  const list = useRef<HTMLOListElement>(null);
  // The anchor scrolled to: a live re-read marks it again without scrolling the reader away.
  const scrolledTo = useRef<string | undefined>(undefined);
  useEffect(() => {
    // A new load (another session) scrolls to its anchor again.
    if (surface === undefined) scrolledTo.current = undefined;
    if (shown === undefined || seq === undefined || list.current === null) return;
    const row = anchorRow(list.current, seq);
    if (row === undefined) return;
    row.dataset['anchored'] = 'true';
    const key = `${sessionId}:${seq}`;
    if (scrolledTo.current === key) return () => delete row.dataset['anchored'];
    scrolledTo.current = key;
    let current = true;
    // Scrolled once the Markdown above it has its final height.
    markdownReady().then(() =>
      requestAnimationFrame(() => {
        if (current) row.scrollIntoView({ block: 'center' });
      }),
    );
    return () => {
      current = false;
      delete row.dataset['anchored'];
    };
  }, [shown, surface, seq, sessionId]);

  if (failure !== undefined)
    return (
      <main class="view session-view">
        <h1>Session</h1>
        <p role="alert" class="error">
          Could not read the session: {failure}
        </p>
      </main>
    );
  if (surface === undefined)
    return (
      <main class="view session-view">
        <p role="status">Loading the session…</p>
      </main>
    );
  const items = shown?.items ?? surface.items;
  const toolNames = new Map<string, string>();
  for (const item of items) if (item.kind === 'tool-call') toolNames.set(item.callId, item.name);
  const replacedBy = new Map((whole ? log?.shadowed : undefined)?.map((entry) => [entry.seq, entry.by]) ?? []);
  const replacementAt = new Map((whole ? log?.replacements : undefined)?.map((entry) => [entry.seq, entry]) ?? []);
  // A multi-block event is several rows of one seq: its replacement note goes on its first row only.
  const noted = new Set<number>();
  return (
    <main class="view session-view" aria-labelledby="session-heading">
      <h1 id="session-heading">{surface.label}</h1>
      <p class="session-meta">
        {surface.cwd ?? '(no project)'} · <time dateTime={isoTime(surface.createdAt)}>{formatTime(surface.createdAt)}</time> ·{' '}
        <a href={hrefOf({ view: 'context', sessionId })}>Context</a> ·{' '}
        <a href={hrefOf({ view: 'compose', target: sessionId })}>Compose in this session</a>
      </p>
      {removed ? (
        <p class="notice session-removed" role="status">
          This session was removed from the root; what it said is shown as it was last read.
        </p>
      ) : null}
      <div class="log-switch">
        <button type="button" class="toggle" aria-pressed={whole} onClick={() => setWhole(!whole)}>
          Whole log
        </button>
        <span class="hint">
          {whole
            ? log === undefined
              ? logFailure === undefined
                ? 'Reading the whole log…'
                : ''
              : `Every message of the log; ${log.shadowed.length} replaced by ${log.replacements.length} compactions or rewrites.`
            : 'What the model sees now.'}
        </span>
      </div>
      {whole && logFailure !== undefined ? (
        <p role="alert" class="error">
          Could not read the whole log: {logFailure}
        </p>
      ) : null}
      {/* Until the whole log has come, the surface stays on screen under its own name. */}
      <ol
        class={whole && log !== undefined ? 'conversation whole-log' : 'conversation'}
        aria-label={whole && log !== undefined ? 'Whole log' : 'Conversation'}
        aria-busy={whole && log === undefined && logFailure === undefined}
        ref={list}
      >
        {conversationRows(items).map((row) => {
          const at = row.item.seq;
          const first = !noted.has(at);
          noted.add(at);
          const by = replacedBy.get(at);
          const replacement = first ? replacementAt.get(at) : undefined;
          return (
            <li
              key={`${row.kind}-${at}-${row.item.kind}`}
              class={by === undefined ? 'conversation-row' : 'conversation-row replaced'}
              data-seq={at}
              data-kind={row.item.kind}
              data-replaced-by={by}
            >
              {replacement === undefined ? null : <ReplacementNote sessionId={sessionId} replacement={replacement} />}
              <Row row={row} toolNames={toolNames} />
              {by !== undefined && first ? (
                <p class="replaced-note">
                  Replaced at <a href={hrefOf({ view: 'session', sessionId, seq: by })}>seq {by}</a>
                </p>
              ) : null}
            </li>
          );
        })}
      </ol>
    </main>
  );
}

/** What a replacement took off the surface: how many messages, from which seq to which. */
function ReplacementNote({ sessionId, replacement }: { sessionId: string; replacement: WebReplacement }): JSX.Element {
  const { replaced } = replacement;
  const first = replaced[0];
  const last = replaced[replaced.length - 1];
  return (
    <p class="replacement-note" data-replaced={replaced.join(' ')}>
      {replacement.compaction ? 'Compaction' : 'Rewrite'} at seq {replacement.seq} replaced {replaced.length}{' '}
      {replaced.length === 1 ? 'message' : 'messages'}
      {first === undefined ? null : (
        <>
          {' '}
          (<a href={hrefOf({ view: 'session', sessionId, seq: first })}>seq {first}</a>
          {last !== first ? <>–{last}</> : null})
        </>
      )}
    </p>
  );
}

function Row({ row, toolNames }: { row: ConversationRow; toolNames: ReadonlyMap<string, string> }): JSX.Element {
  switch (row.kind) {
    case 'user':
      return <UserBubble item={row.item} recalls={row.recalls} />;
    case 'recall':
      return <RecallRow item={row.item} />;
    case 'other':
      return <OtherItem item={row.item} toolNames={toolNames} />;
    default: {
      const never: never = row;
      throw new TypeError(`unknown row ${JSON.stringify(never)}`);
    }
  }
}

function UserBubble({ item, recalls }: { item: UserItem; recalls: readonly RecallItem[] }): JSX.Element {
  const labels = recalls.flatMap((recall) => recall.labels);
  return (
    <article class="bubble user" aria-label="User message">
      <MarkdownText class="bubble-text" text={item.text} mentions={item.mentions} />
      {labels.length > 0 ? <p class="referenced">Referenced session · {labels.join(LABEL_JOINER)}</p> : null}
      <Time ms={item.time} />
    </article>
  );
}

function RecallRow({ item }: { item: RecallItem }): JSX.Element {
  return (
    <details class="recall">
      <summary>Session recall · {joinedLabels(item)}</summary>
      <ul class="recall-sources">
        {item.sources.map((source) => (
          <li key={source.sessionId} class="recall-source">
            {source.label} {source.keptMessages} kept · {source.omittedMessages} omitted{source.truncated ? ' · truncated' : ''}
          </li>
        ))}
      </ul>
      <pre class="bounded recall-json">{item.text}</pre>
    </details>
  );
}

function OtherItem({
  item,
  toolNames,
}: {
  item: Exclude<WebTranscriptItem, UserItem | RecallItem>;
  toolNames: ReadonlyMap<string, string>;
}): JSX.Element {
  switch (item.kind) {
    case 'assistant':
      return (
        <article class="bubble assistant" aria-label="Assistant message">
          <MarkdownText class="bubble-text" text={item.text} />
          <Time ms={item.time} />
        </article>
      );
    case 'reasoning':
      return (
        <details class="reasoning">
          <summary>Reasoning</summary>
          <pre class="bounded">{item.text}</pre>
        </details>
      );
    case 'tool-call':
      return (
        <details class="tool tool-call">
          <summary>Tool call · {item.name}</summary>
          <pre class="bounded">{item.argumentsText}</pre>
        </details>
      );
    case 'tool-result':
      return (
        <details class="tool tool-result">
          <summary>Tool result · {toolNames.get(item.callId) ?? item.callId}</summary>
          <pre class="bounded">{item.text}</pre>
        </details>
      );
    case 'checkpoint':
      return (
        <article class="checkpoint" aria-label="Compaction checkpoint">
          <h2 class="checkpoint-title">Checkpoint</h2>
          <MarkdownText class="bubble-text" text={item.text} />
          <Time ms={item.time} />
        </article>
      );
    default: {
      const never: never = item;
      throw new TypeError(`unknown item ${JSON.stringify(never)}`);
    }
  }
}

function Time({ ms }: { ms: number }): JSX.Element {
  return (
    <time class="item-time" dateTime={isoTime(ms)}>
      {formatTime(ms)}
    </time>
  );
}
