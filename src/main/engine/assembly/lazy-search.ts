/**
 * The engine's full-text search, built on first use (issue 26 item 6): the search service and its SQLite index
 * client are imported only when a command searches or manages the index, so commands that never search (`sessions`,
 * `show`, `prepare`, …) do not pay their load at start-up. The configuration is validated at engine start by the
 * caller, as before; only the modules wait.
 */
import type { SearchService, SearchServiceOptions } from '../search/search-service.js';
import type { SqliteSearchIndex, SqliteSearchIndexOptions } from '../search/sqlite-search-index.js';

/** The search service and the index client behind it. */
export interface SearchParts {
  readonly service: SearchService;
  readonly index: SqliteSearchIndex;
}

/** What the search is built from: the index client's options and the service's, without the index. */
export interface LazySearchOptions {
  readonly index: SqliteSearchIndexOptions;
  readonly service: Omit<SearchServiceOptions, 'index'>;
}

/** A search that is built once, by the first caller of {@link LazySearch.parts}. */
export class LazySearch {
  readonly #options: LazySearchOptions;
  #parts: Promise<SearchParts> | undefined;

  constructor(options: LazySearchOptions) {
    this.#options = options;
  }

  /** The search, imported and built now if it was not yet. */
  parts(): Promise<SearchParts> {
    this.#parts ??= (async () => {
      const [{ SearchService }, { SqliteSearchIndex }] = await Promise.all([
        import('../search/search-service.js'),
        import('../search/sqlite-search-index.js'),
      ]);
      const index = new SqliteSearchIndex(this.#options.index);
      return { index, service: new SearchService({ ...this.#options.service, index }) };
    })();
    return this.#parts;
  }

  /** Closes the index client if the search was ever built (its worker, if started). */
  async close(): Promise<void> {
    if (this.#parts === undefined) return;
    await (await this.#parts).index.close();
  }
}
