/**
 * The remote methods of `sessionctx serve` (issue 18, docs/WEB.md "Server and API"): one handler per method of
 * {@link WebApi}, typed by the contract, so `tsc` checks each handler's arguments and value against what the page
 * expects. Every handler only reads: the engine's discovery and exact reads, `prepare()` (which writes nothing) and
 * the stored log of a session.
 */
import { asSessionId } from '../../../protocol/events.js';
import type { SearchPage, SearchQuery } from '../../../protocol/search-types.js';
import type { WebApi, WebMethod } from '../../../protocol/web/web-api.js';
import { CatalogError } from '../../catalog/catalog-error.js';
import { FileIndexError } from '../../engine/files/file-index-error.js';
import type { SessionCatalog } from '../../catalog/session-catalog.js';
import { previewView, type PreviewBudget } from './preview-view.js';
import { logView, surfaceView } from './surface-view.js';
import { WebServerError } from './web-server-error.js';

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
  /** The catalog every method asks (built over the server's engine, with the DCP configuration of `/dcp stats`). */
  readonly catalog: SessionCatalog;
  /** The reference limits `prepare()` runs under (the Preview's budget bars). */
  readonly budget: PreviewBudget;
  readonly search?: WebSearch | undefined;
}

/**
 * Builds the handlers.
 * @param options - the engine, the reference budget, the DCP configuration and the optional search function.
 */
export function createWebHandlers(options: WebHandlerOptions): WebHandlers {
  const { catalog } = options;
  return {
    async 'sessions/list'(_args, { signal }) {
      const { rows, skipped } = await catalog.list(signal);
      return { sessions: [...rows], skipped };
    },

    async 'sessions/candidates'(args, { signal }) {
      const found = await catalog.candidates(await catalog.reader(args.target, signal), args.query, args.limit, signal);
      return found.map((candidate) => ({
        sessionId: candidate.sessionId,
        label: candidate.label,
        ...(candidate.cwd === undefined ? {} : { cwd: candidate.cwd }),
        createdAt: candidate.createdAt,
        mention: candidate.mention,
      }));
    },

    async 'sessions/surface'(args, { signal }) {
      const { snapshot, label } = await catalog.surface(asSessionId(args.sessionId), signal);
      return surfaceView(snapshot, label);
    },

    async 'sessions/log'(args, { signal }) {
      const { meta, events, label } = await catalog.wholeLog(asSessionId(args.sessionId), signal);
      return logView(meta, events, label);
    },

    async 'files/candidates'(args, { signal }) {
      try {
        const listing = await catalog.fileCandidates(args.target, args.query, signal);
        return {
          ...(listing.cwd === undefined ? {} : { cwd: listing.cwd }),
          files: listing.candidates.map((file) => ({ path: file.path, kind: file.kind })),
          truncated: listing.truncated,
        };
      } catch (error) {
        // A cwd that is gone or unreadable fails the file domain only: the picker still offers sessions.
        if (error instanceof FileIndexError)
          return { files: [], truncated: false, unavailable: { code: error.code, message: error.message } };
        throw error;
      }
    },

    async 'references/prepare'(args, { signal }) {
      const prepared = await catalog.prepareMessage(await catalog.reader(args.target, signal), args.content, signal);
      return previewView(prepared, options.budget);
    },

    async 'dcp/summary'(args, { signal }) {
      try {
        return await catalog.dcpSummary(asSessionId(args.sessionId), signal);
      } catch (error) {
        // The page's documented code for a server without a root (docs/WEB.md).
        if (error instanceof CatalogError && error.kind === 'no-root') throw new WebServerError('WEB_NO_SESSION_ROOT', error.message);
        throw error;
      }
    },

    'search/sessions'(args, { signal }) {
      if (options.search === undefined) {
        return Promise.reject(new WebServerError('SEARCH_UNAVAILABLE', 'full-text search is not available on this server'));
      }
      return options.search(args, signal);
    },
  };
}
