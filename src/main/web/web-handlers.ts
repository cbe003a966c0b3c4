/**
 * The remote methods of `sessionctx serve` (issue 18, docs/WEB.md "Server and API"): one handler per method of
 * {@link WebApi}, typed by the contract, so `tsc` checks each handler's arguments and value against what the page
 * expects. Every handler only reads: the engine's discovery and exact reads, `prepare()` (which writes nothing) and
 * the stored log of a session.
 */
import { stat } from 'node:fs/promises';
import { asSessionId } from '../../protocol/events.js';
import type { SessionId } from '../../protocol/events.js';
import type { SearchPage, SearchQuery } from '../../protocol/search-types.js';
import { escapeDisplayText } from '../../protocol/uri/display-escape.js';
import { parseMessageContent } from '../../protocol/uri/mention-parser.js';
import type { WebApi, WebDcpSummary, WebMethod, WebSessionRow } from '../../protocol/web/web-api.js';
import type { LocalSessionEngine } from '../engine/create-engine.js';
import type { SessionRecord } from '../corpus/session-query.js';
import { artifactPathFor } from '../../io/artifact-path.js';
import { dcpSummary } from './dcp-summary.js';
import { previewView, type PreviewBudget } from './preview-view.js';
import { RevisionCache } from './revision-cache.js';
import { surfaceView } from './surface-view.js';
import { webReader } from './web-reader.js';
import { WebServerError } from './web-server-error.js';
import { discoveryLabel } from '../corpus/discovery-label.js';

/** What the handlers use of the engine (a `LocalSessionEngine` has all of it; tests may stand in for parts). */
export type WebEngine = Pick<
  LocalSessionEngine,
  'listSessionsReport' | 'readTitleSnapshots' | 'readSurface' | 'candidates' | 'prepare' | 'store' | 'runner'
>;

/** Full-text search, as `SessionEngine.searchSessions` will offer it (issue 17). */
export type WebSearch = (query: SearchQuery, signal: AbortSignal) => Promise<SearchPage>;

/** What every handler receives besides its arguments. */
export interface WebCallContext {
  /** Aborted when the client goes away before the reply is written. */
  readonly signal: AbortSignal;
}

/** One handler per method, typed by the contract. */
export type WebHandlers = {
  readonly [M in WebMethod]: (args: WebApi[M]['args'], context: WebCallContext) => Promise<WebApi[M]['value']>;
};

/** What the handlers are built from. */
export interface WebHandlerOptions {
  readonly engine: WebEngine;
  /** The reference limits `prepare()` runs under (the Preview's budget bars). */
  readonly budget: PreviewBudget;
  /** The `dcp` configuration namespace (DCP.md §16) the `/dcp stats` read runs with. */
  readonly dcpConfig: Readonly<Record<string, unknown>>;
  readonly search?: WebSearch | undefined;
}

/** How many Context views the server keeps computed. */
const DCP_SUMMARY_CACHE_ENTRIES = 8;

/** The size of the regular file at `path`, or `undefined` when there is none. */
async function fileSize(path: string): Promise<number | undefined> {
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() === true ? info.size : undefined;
}

/**
 * The bytes of a session's artifact, or 0 when it has none (a live session not yet written) or it vanished. The
 * path its header names is tried first (one `stat`); only an artifact found elsewhere costs the store's lookup.
 */
async function artifactBytes(engine: WebEngine, record: SessionRecord, signal: AbortSignal): Promise<number> {
  const store = engine.store;
  if (store === undefined || !record.persisted) return 0;
  const { id, cwd } = record.header;
  try {
    const named = await fileSize(artifactPathFor(store.config, id, cwd));
    if (named !== undefined) return named;
    const located = await store.locate(id, signal);
    return located === undefined ? 0 : ((await fileSize(located)) ?? 0);
  } catch {
    // A size is a detail of the row: a layout problem of this one session (reported by its reads) must not fail the list.
    return 0;
  }
}

/** The label of one session as discovery gives it. */
async function sessionLabel(engine: WebEngine, sessionId: SessionId, signal: AbortSignal): Promise<string> {
  const [observation] = await engine.readTitleSnapshots([sessionId], signal);
  return discoveryLabel(sessionId, observation);
}

/**
 * Builds the handlers.
 * @param options - the engine, the reference budget, the DCP configuration and the optional search function.
 */
export function createWebHandlers(options: WebHandlerOptions): WebHandlers {
  const { engine } = options;
  // The Context view of a long session is a whole-log replay: the last few are kept while their logs do not change.
  const summaries = new RevisionCache<WebDcpSummary>(DCP_SUMMARY_CACHE_ENTRIES);
  return {
    async 'sessions/list'(_args, { signal }) {
      const report = await engine.listSessionsReport(signal);
      const ids = report.records.map((record) => record.header.id);
      const [titles, sizes] = await Promise.all([
        engine.readTitleSnapshots(ids, signal),
        Promise.all(report.records.map((record) => artifactBytes(engine, record, signal))),
      ]);
      // The listing's order is already newest first (createdAt descending, then id; SESSION-LOG.md §10.3).
      const sessions: WebSessionRow[] = report.records.map((record, index) => ({
        sessionId: record.header.id,
        label: discoveryLabel(record.header.id, titles[index]),
        ...(record.header.cwd === undefined ? {} : { cwd: escapeDisplayText(record.header.cwd) }),
        createdAt: record.header.createdAt,
        sizeBytes: sizes[index] ?? 0,
        live: record.live,
      }));
      return { sessions, skipped: report.problems.length };
    },

    async 'sessions/candidates'(args, { signal }) {
      const target = await webReader(engine, args.target, signal);
      const found = await engine.candidates(target, args.query, args.limit, signal);
      return found.map((candidate) => ({
        sessionId: candidate.sessionId,
        label: candidate.label,
        ...(candidate.cwd === undefined ? {} : { cwd: candidate.cwd }),
        createdAt: candidate.createdAt,
        mention: candidate.mention,
      }));
    },

    async 'sessions/surface'(args, { signal }) {
      const sessionId = asSessionId(args.sessionId);
      const [snapshot, label] = await Promise.all([engine.readSurface(sessionId, signal), sessionLabel(engine, sessionId, signal)]);
      return surfaceView(snapshot, label);
    },

    async 'references/prepare'(args, { signal }) {
      const target = await webReader(engine, args.target, signal);
      // The message's mentions are parsed as the host parses a direct message (SESSION-REFERENCE.md §5.2, §13.2).
      const parsed = parseMessageContent([{ type: 'text', text: args.content }]);
      const prepared = await engine.prepare(target, parsed.content, parsed.references, signal);
      return previewView(prepared, options.budget);
    },

    'dcp/summary'(args, { signal }) {
      return dcpSummary({ engine, sessionId: asSessionId(args.sessionId), dcpConfig: options.dcpConfig, signal, cache: summaries });
    },

    'search/sessions'(args, { signal }) {
      if (options.search === undefined) {
        return Promise.reject(new WebServerError('SEARCH_UNAVAILABLE', 'full-text search is not available on this server'));
      }
      return options.search(args, signal);
    },
  };
}
