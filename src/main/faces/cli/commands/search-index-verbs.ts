/**
 * What `sessionctx index build|status|clear` does to the full-text search index (docs/SEARCH.md §4): one SQLite
 * file in the user cache directory for every root, reached through the engine (`buildSearchIndex`,
 * `searchIndexStatus`, `clearSearchIndex`), so a locked file is `SEARCH_INDEX_BUSY` and a file that is not
 * sessionctx's is `SEARCH_FOREIGN_DATABASE` (left untouched), as for a search.
 */
import type { CommandContext } from '../command-context.js';
import { CliError } from '../cli-error.js';
import { withCatalog } from '../open-engine.js';
import { progressBar, type ProgressReporter } from '../progress-bar.js';

/** One index's answer to a verb: its `--json` value and its human lines. */
export interface IndexReport {
  readonly json: unknown;
  readonly lines: readonly string[];
}

/** What the verbs say of an index without a file. */
const IN_MEMORY = 'the search index is kept in memory only (search.directory is null, or no cache directory: set XDG_CACHE_HOME or HOME)';

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

async function build(context: CommandContext, root: string): Promise<IndexReport> {
  const { io, signal } = context;
  let progress: ProgressReporter | undefined;
  const { summary, status } = await withCatalog(context, async ({ catalog }) => {
    const built = await catalog.buildSearchIndex({
      ...(signal === undefined ? {} : { signal }),
      onProgress: (done, total) => {
        progress ??= progressBar(io, 'indexing sessions', total);
        progress.update(done);
      },
    });
    progress?.finish();
    return { summary: built, status: await catalog.searchIndexStatus(signal) };
  });
  const json = { indexPath: status.path, ...summary };
  // Asked for an index on disk: one kept in memory has not done the job (as for the title index).
  if (status.path === null) {
    throw new CliError('CLI_INDEX_NOT_WRITTEN', `indexed ${plural(summary.sessions, 'session')} under ${root}, but ${IN_MEMORY}`, {
      details: json,
    });
  }
  const changes = [
    `${summary.rebuilt} indexed whole`,
    `${summary.appended} appended`,
    `${summary.unchanged} unchanged`,
    `${summary.removed} removed`,
    ...(summary.unindexable === 0 ? [] : [`${summary.unindexable} unindexable`]),
  ];
  return {
    json,
    lines: [
      `search index ${status.path}`,
      `${plural(summary.sessions, 'session')}, ${plural(summary.documents, 'document')} of ${root} (${changes.join(', ')})`,
    ],
  };
}

async function status(context: CommandContext, root: string): Promise<IndexReport> {
  const report = await withCatalog(context, ({ catalog }) => catalog.searchIndexStatus(context.signal));
  const json = {
    indexPath: report.path,
    exists: report.exists,
    bytes: report.bytes,
    schemaVersion: report.schemaVersion,
    currentSchemaVersion: report.currentSchemaVersion,
    sessions: report.sessions,
    documents: report.documents,
    roots: report.roots,
  };
  if (report.path === null) return { json, lines: [IN_MEMORY] };
  if (!report.exists) {
    return {
      json,
      lines: [`no search index at ${report.path}; the next search builds it, or run sessionctx index build --search --root ${root}`],
    };
  }
  if (report.schemaVersion !== report.currentSchemaVersion) {
    return {
      json,
      lines: [
        `search index ${report.path}`,
        `schema version ${String(report.schemaVersion)}, this build writes ${report.currentSchemaVersion} (${report.bytes} bytes): the next search or build rebuilds it`,
      ],
    };
  }
  return {
    json,
    lines: [
      `search index ${report.path}`,
      `${plural(report.sessions, 'session')}, ${plural(report.documents, 'document')} of ${root}; ${plural(report.roots, 'root')} in the file, ${report.bytes} bytes, schema version ${String(report.schemaVersion)}`,
    ],
  };
}

async function clear(context: CommandContext): Promise<IndexReport> {
  const result = await withCatalog(context, ({ catalog }) => catalog.clearSearchIndex(context.signal));
  const json = { indexPath: result.path, removed: result.removed };
  if (result.path === null) return { json, lines: [IN_MEMORY] };
  return {
    json,
    lines: [
      result.removed
        ? `removed ${result.path} (the search index of every root; the next search rebuilds it)`
        : `no search index at ${result.path}`,
    ],
  };
}

/** The three verbs on the search index. */
export const searchIndexVerbs: Readonly<
  Record<'build' | 'status' | 'clear', (context: CommandContext, root: string) => Promise<IndexReport>>
> = {
  build,
  status,
  clear: (context) => clear(context),
};
