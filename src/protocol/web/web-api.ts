/**
 * The Web API contract of `sessionctx serve` (issue 18): every remote method as `POST /api/<service>/<method>` with a
 * JSON body of arguments and a JSON reply {@link WebReply}. The server's handlers and the page's typed client stubs are
 * both written against {@link WebApi}, so the two cannot drift (the page imports these types; `tsc` checks both).
 * Plain JSON data only.
 */
import type { SearchPage, SearchQuery } from '../search-types.js';

/** A failure as the API reports it: the typed error's stable code and its message. */
export interface WebError {
  readonly code: string;
  readonly message: string;
}

/** Every reply: `{ok: true, value}` or `{ok: false, error}`. */
export type WebReply<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: WebError };

/** A session of the corpus as the Sessions view lists it. */
export interface WebSessionRow {
  readonly sessionId: string;
  /** The discovery label (title, else id), escaped as discovery escapes labels. */
  readonly label: string;
  readonly cwd?: string;
  readonly createdAt: number;
  /** Bytes of its artifact (0 for a live session without one). */
  readonly sizeBytes: number;
  readonly live: boolean;
  /**
   * Present (true) while the server has not read the session's title yet (the first listing of a root whose titles
   * were never read answers from the headers alone): `label` is then the id, and the row with its title follows on the
   * event stream as a changed row.
   */
  readonly titlePending?: true;
}

/** A discovery result with its canonical mention (the seed's host face: same order and contents as `candidates()`). */
export interface WebCandidate {
  readonly sessionId: string;
  readonly label: string;
  readonly cwd?: string;
  readonly createdAt: number;
  readonly mention: string;
}

/** A mention found in a user message: its label and the canonical mention text. */
export interface WebMention {
  readonly sessionId: string;
  readonly label: string;
  readonly mention: string;
}

/** Per source of a session-reference context: what was kept and omitted (the replay's compact source summary). */
export interface WebSourceSummary {
  readonly sessionId: string;
  readonly label: string;
  readonly keptMessages: number;
  readonly omittedMessages: number;
  readonly omittedBytes: number;
  readonly truncated: boolean;
  readonly compacted: boolean;
}

/** One item of a session's current surface as the Session view shows it (a closed union on `kind`). */
export type WebTranscriptItem =
  | { readonly kind: 'user'; readonly seq: number; readonly time: number; readonly text: string; readonly mentions: readonly WebMention[] }
  | { readonly kind: 'assistant'; readonly seq: number; readonly time: number; readonly text: string }
  | { readonly kind: 'reasoning'; readonly seq: number; readonly time: number; readonly text: string }
  | {
      readonly kind: 'tool-call';
      readonly seq: number;
      readonly time: number;
      readonly callId: string;
      readonly name: string;
      readonly argumentsText: string;
    }
  | { readonly kind: 'tool-result'; readonly seq: number; readonly time: number; readonly callId: string; readonly text: string }
  | { readonly kind: 'checkpoint'; readonly seq: number; readonly time: number; readonly text: string }
  | {
      /** A session-reference context, attached to the direct user message before it (`attachedToSeq`). */
      readonly kind: 'session-recall';
      readonly seq: number;
      readonly time: number;
      readonly attachedToSeq: number | null;
      readonly labels: readonly string[];
      readonly sources: readonly WebSourceSummary[];
      /** The framed JSON of the context message, shown in a bounded block. */
      readonly text: string;
    };

/** A session's current surface as a conversation. */
export interface WebSurface {
  readonly sessionId: string;
  readonly label: string;
  readonly cwd?: string;
  readonly createdAt: number;
  readonly items: readonly WebTranscriptItem[];
}

/** A surface change of the whole log: the event at `seq` replaced the messages `replaced` (their seqs, in order). */
export interface WebReplacement {
  readonly seq: number;
  readonly replaced: readonly number[];
  /** A compaction checkpoint (native or DCP) replaced them; otherwise a rewrite (a pruned tool result). */
  readonly compaction: boolean;
}

/**
 * A session's whole log as a conversation (the Web's `sessionctx show --log`): every message ever on its surface, in
 * log order, with what each replacement took off the surface.
 */
export interface WebSessionLog {
  readonly sessionId: string;
  readonly label: string;
  readonly cwd?: string;
  readonly createdAt: number;
  /** Every surface event's items, current and replaced alike. */
  readonly items: readonly WebTranscriptItem[];
  /** Each replacement, in log order. */
  readonly replacements: readonly WebReplacement[];
  /** The seqs no longer on the surface, each with the seq of the event that replaced it. */
  readonly shadowed: readonly { readonly seq: number; readonly by: number }[];
}

/** Per source of a preview: kept/omitted messages and bytes against the budget. */
export interface WebPreviewSource extends WebSourceSummary {
  /** Bytes of the source's rendered snapshot data. */
  readonly renderedBytes: number;
  /** The per-source byte budget it was rendered within. */
  readonly budgetBytes: number;
}

/** Exactly what the model would receive for a message: the rewritten text and the context message, if any. */
export interface WebPreview {
  /** The rewritten message text (mentions replaced by their labels, as `prepare()` rewrites them). */
  readonly content: string;
  /** The context message's text (the snapshot), absent when the message cites no session. */
  readonly context?: string;
  readonly sources: readonly WebPreviewSource[];
  /** The total byte budget of one context message. */
  readonly totalBudgetBytes: number;
}

/** One point of a session's estimated context size over its log. */
export interface WebContextPoint {
  readonly seq: number;
  readonly turn: number;
  /** Estimated tokens of the context the model would see after this event. */
  readonly tokens: number;
}

/** Where the context shrank, and why. */
export interface WebContextDrop {
  readonly seq: number;
  readonly kind: 'compaction' | 'dcp-compress' | 'dcp-prune';
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** The DCP block (`bN`) of a compress drop. */
  readonly blockId?: string;
}

/** A DCP block as the Context view's table shows it. */
export interface WebDcpBlock {
  /** `bN`. */
  readonly id: string;
  readonly topic: string;
  /** The seq range it covers. */
  readonly fromSeq: number;
  readonly toSeq: number;
  readonly tokensSaved: number;
  readonly state: 'active' | 'consumed' | 'absorbed-native' | 'expanded';
}

/** One prefix invalidation of `/dcp stats` (DCP.md §14): the first seq and position it re-read from, and why. */
export interface WebDcpInvalidation {
  readonly firstSeq: number;
  readonly position: number;
  readonly reReadTokens: number;
  readonly cause: 'dcp' | 'native' | 'mixed';
}

/**
 * The figures of `/dcp stats` (DCP.md §15.2, §15.3) as numbers: what `sessionctx dcp stats --json` returns as
 * `stats`, so the page shows them as a table without reading the text. Token figures are heuristic estimates.
 */
export interface WebDcpStats {
  /** DCP blocks ever created, and of those still active. */
  readonly blocks: { readonly historical: number; readonly active: number };
  readonly shadowedTokens: number;
  readonly checkpointTokens: number;
  readonly pruneTokens: number;
  readonly cleanupTokens: number;
  readonly expansionTokens: number;
  readonly markerTokens: number;
  /** Signed: negative is overhead. */
  readonly historyReduction: number;
  readonly pruneReplacements: number;
  readonly inlineCleanups: number;
  /** Prefix invalidations over the whole log, by cause. */
  readonly invalidations: { readonly dcp: number; readonly native: number; readonly mixed: number };
  /** The most recent ones (`stats.invalidationHistory`), newest last. */
  readonly recentInvalidations: readonly WebDcpInvalidation[];
  /** The estimated tokens of the current surface. */
  readonly surfaceTokens: number;
  /** The cross-session domain: `unavailable` here, as this server keeps no DCP plugin storage. */
  readonly domain: { readonly status: 'current' | 'stale' | 'unavailable'; readonly reason?: string };
}

/** The Context view of one session: its size over the log, its drops, its DCP blocks and `/dcp stats`. */
export interface WebDcpSummary {
  readonly sessionId: string;
  /** The session's discovery label (its title, else its id), the view's heading. */
  readonly label: string;
  readonly points: readonly WebContextPoint[];
  readonly drops: readonly WebContextDrop[];
  readonly blocks: readonly WebDcpBlock[];
  /** The `/dcp stats` text for the session, as the command prints it. */
  readonly statsText: string;
  /** The same figures as numbers; absent when DCP is disabled in the configuration. */
  readonly stats?: WebDcpStats;
}

/** A path under the target session's cwd that the `@` picker offers (relative, `/`-separated). */
export interface WebFileCandidate {
  readonly path: string;
  /** A directory keeps the picker open to descend; a file ends the reference. */
  readonly kind: 'file' | 'directory';
}

/** The file domain of the `@` picker for one query. */
export interface WebFileCandidates {
  /** The cwd searched; absent when the target has none (no target, or a conversation not written yet). */
  readonly cwd?: string;
  /** At most 20, best first. */
  readonly files: readonly WebFileCandidate[];
  /** The cwd holds more than the index's 10,000 paths, so a bare query searched the first 10,000. */
  readonly truncated: boolean;
  /**
   * Why the cwd could not be searched: `FILE_INDEX_CWD_MISSING` (not a directory on this machine: the picker stays
   * quiet about it), `FILE_INDEX_CWD_UNREADABLE` or `FILE_INDEX_CWD_INVALID`. The file domain alone fails.
   */
  readonly unavailable?: WebError;
}

/** Every remote method: its arguments and its value. */
export interface WebApi {
  'sessions/list': {
    readonly args: Record<string, never>;
    readonly value: {
      readonly sessions: readonly WebSessionRow[];
      readonly skipped: number;
      /**
       * The event stream's revision these rows are at (absent from a server without a stream): a change the page
       * receives with a revision at or below it is already in them.
       */
      readonly revision?: number;
    };
  };
  'sessions/candidates': {
    readonly args: { readonly target?: string; readonly query: string; readonly limit?: number };
    readonly value: readonly WebCandidate[];
  };
  'sessions/surface': { readonly args: { readonly sessionId: string }; readonly value: WebSurface };
  'sessions/log': { readonly args: { readonly sessionId: string }; readonly value: WebSessionLog };
  'files/candidates': { readonly args: { readonly target?: string; readonly query: string }; readonly value: WebFileCandidates };
  'references/prepare': { readonly args: { readonly target?: string; readonly content: string }; readonly value: WebPreview };
  'dcp/summary': { readonly args: { readonly sessionId: string }; readonly value: WebDcpSummary };
  'search/sessions': { readonly args: SearchQuery; readonly value: SearchPage };
}

/** A method's name, `<service>/<method>`. */
export type WebMethod = keyof WebApi;

/** Every method name, in the order the docs list them. */
export const WEB_METHODS: readonly WebMethod[] = [
  'sessions/list',
  'sessions/candidates',
  'sessions/surface',
  'sessions/log',
  'files/candidates',
  'references/prepare',
  'dcp/summary',
  'search/sessions',
];

/**
 * One change of the corpus as the event stream (`GET /api/events`, `text/event-stream`) sends it, as the `data` of an
 * `event: corpus` message whose `id` is `<epoch>-<revision>`: the sessions that appeared, went away, or changed
 * (a new title, an appended message: any field of its {@link WebSessionRow}) since the previous revision.
 */
export interface WebCorpusChange {
  /** This change's revision: one more than the previous change's, within one server run (the id's epoch). */
  readonly revision: number;
  readonly added: readonly WebSessionRow[];
  /** Ids of the sessions that left the listing. */
  readonly removed: readonly string[];
  /** The new rows of sessions whose row changed. */
  readonly changed: readonly WebSessionRow[];
}

/**
 * The data of an `event: reset` message: the stream cannot tell what changed since the client's last event id (a
 * first connection, another server run, or an id older than the changes the server keeps), so the client reads what
 * it shows again (`sessions/list`, the open session's surface).
 */
export interface WebCorpusReset {
  readonly revision: number;
}
