/**
 * `sessionctx index build|status|clear [--titles] [--search]`: the two derived indexes of a session root, both in
 * the user cache directory — the persistent title index (SESSION-LOG.md §10.7, one file per root) and the full-text
 * search index (docs/SEARCH.md, one SQLite file for every root). Without a flag a verb acts on both (the search
 * index only while `search.enabled`); `--titles` or `--search` names one. `build` brings the index up to date (an
 * unchanged log costs one stat, an appended one only its new bytes; deleted sessions are pruned) with a progress
 * bar on a terminal; `status` reports each file; `clear` removes it (the next discovery or search rebuilds it).
 * The title index file is found by the same function the store asks ({@link resolveTitleIndexLocation}) with the
 * command's environment (`CliIo.env`); the search index through the engine (`searchIndexStatus` and friends).
 * `--json` prints `{ "titles": …, "search": … }` with a key per index acted on.
 */
import { readFile, rm, stat } from 'node:fs/promises';
import { resolveTitleIndexLocation, type TitleIndexLocation } from '../../../engine/config/cache-location.js';
import { decodeTitleIndex } from '../../../engine/corpus/title-index/title-index-file.js';
import type { CliIo } from '../cli-io.js';
import type { CliCommandDefinition } from '../cli-command.js';
import type { CommandContext } from '../command-context.js';
import { assertRootExists, withCatalog } from '../open-engine.js';
import { writeJson, writeLines } from '../cli-io.js';
import { progressBar } from '../progress-bar.js';
import { CliError } from '../cli-error.js';
import { searchIndexVerbs, type IndexReport } from './search-index-verbs.js';

/** The index verbs. */
export type IndexVerb = 'build' | 'status' | 'clear';

/** What a verb needs. */
interface IndexCommandOptions {
  readonly root: string;
  readonly json: boolean;
  readonly verb: IndexVerb;
}

/** The flags that pick an index. */
interface IndexFlags {
  readonly titles?: boolean;
  readonly search?: boolean;
}

/** Titles observed per batch, so progress moves and memory stays flat. */
const BUILD_BATCH = 200;

/** The index location of the command's root, with the command's environment. */
function locationOf(io: CliIo, options: IndexCommandOptions): Promise<TitleIndexLocation> {
  return resolveTitleIndexLocation(options.root, { env: io.env });
}

/** What the verbs print when no cache directory can be determined (the index then lives in memory only). */
const NO_CACHE = 'no cache directory (set XDG_CACHE_HOME or HOME): the title index is kept in memory only';

async function build(context: CommandContext, options: IndexCommandOptions): Promise<IndexReport> {
  const { io, signal } = context;
  const { ids, fulfilled, rejected, store } = await withCatalog(context, async ({ catalog, engine }) => {
    // The store keeps the title index (flushed below); the sessions and their titles are the catalog's reads.
    const store = engine.store;
    if (store === undefined) throw new TypeError('index build needs a session root');
    const listed = (await catalog.listingReport(signal)).records.map((record) => record.header.id);
    const progress = progressBar(io, 'indexing titles', listed.length);
    let observed = 0;
    const failures: Array<{ sessionId: string; message: string }> = [];
    for (let start = 0; start < listed.length; start += BUILD_BATCH) {
      for (const observation of await catalog.titleSnapshots(listed.slice(start, start + BUILD_BATCH), signal)) {
        if (observation.status === 'fulfilled') observed += 1;
        else
          failures.push({
            sessionId: observation.sessionId,
            message: observation.reason instanceof Error ? observation.reason.message : String(observation.reason),
          });
      }
      progress.update(Math.min(listed.length, start + BUILD_BATCH));
    }
    progress.finish();
    await store.flushTitleIndex();
    return { ids: listed, fulfilled: observed, rejected: failures, store };
  });
  const summary = {
    root: options.root,
    indexPath: store.titleIndexPath ?? null,
    sessions: ids.length,
    fulfilled,
    rejected,
    stats: store.titleIndexStats ?? null,
    // Asked for explicitly, so a file that could not be written fails the build (below).
    note: store.titleIndexNote ?? null,
  };
  // The user asked for an index on disk: a build whose file could not be written has not done its job.
  if (summary.indexPath === null || summary.note !== null) {
    throw new CliError(
      'CLI_INDEX_NOT_WRITTEN',
      `observed ${ids.length} title${ids.length === 1 ? '' : 's'} under ${options.root}, but the index was not saved: ${summary.note ?? NO_CACHE}`,
      { details: summary },
    );
  }
  return {
    json: summary,
    lines: [
      `indexed ${ids.length} session${ids.length === 1 ? '' : 's'} under ${options.root}`,
      `index file: ${summary.indexPath}`,
      ...(summary.stats === null
        ? []
        : [
            `answered: ${Object.entries(summary.stats)
              .map(([kind, count]) => `${kind} ${String(count)}`)
              .join(', ')}`,
          ]),
      ...rejected.map((failure) => `unreadable: ${failure.sessionId}: ${failure.message}`),
    ],
  };
}

async function status(io: CliIo, options: IndexCommandOptions): Promise<IndexReport> {
  const { indexPath: path, realRoot } = await locationOf(io, options);
  const stats =
    path === undefined
      ? undefined
      : await stat(path).catch((error: unknown) => {
          if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
          throw error;
        });
  const content = path === undefined || stats === undefined ? undefined : decodeTitleIndex(await readFile(path));
  // A file of another root (a digest collision, a copied cache file) is discarded by the store, so it is not valid here.
  const valid = content !== undefined && content.root === realRoot;
  const report = {
    root: options.root,
    indexPath: path ?? null,
    exists: stats !== undefined,
    bytes: stats?.size ?? 0,
    valid: stats === undefined ? null : valid,
    entries: valid ? content.entries.size : 0,
    modified: stats === undefined ? null : stats.mtime.toISOString(),
  };
  if (path === undefined) return { json: report, lines: [NO_CACHE] };
  if (!report.exists) return { json: report, lines: [`no title index at ${path}; run sessionctx index build --root ${options.root}`] };
  return {
    json: report,
    lines: [
      `title index ${path}`,
      report.valid === true
        ? `${report.entries} entries, ${report.bytes} bytes, written ${report.modified}`
        : `unreadable, of another version or of another root (${report.bytes} bytes): it will be discarded and rebuilt`,
    ],
  };
}

async function clear(io: CliIo, options: IndexCommandOptions): Promise<IndexReport> {
  const { indexPath: path } = await locationOf(io, options);
  const existed =
    path !== undefined &&
    (await stat(path).then(
      () => true,
      () => false,
    ));
  if (path !== undefined) await rm(path, { force: true });
  return {
    json: { indexPath: path ?? null, removed: existed },
    lines: [path === undefined ? NO_CACHE : existed ? `removed ${path}` : `no title index at ${path}`],
  };
}

/** What each verb does to the title index, and its line in the help. */
interface VerbSpec {
  readonly summary: string;
  readonly run: (context: CommandContext, options: IndexCommandOptions) => Promise<IndexReport>;
}

const VERBS: Readonly<Record<IndexVerb, VerbSpec>> = {
  build: {
    summary: 'bring the title and search indexes up to date (an unchanged log costs one stat); a progress bar on a terminal',
    run: build,
  },
  status: {
    summary: 'say where each index is, how much it holds and whether it is valid',
    run: async (context, options) => {
      await assertRootExists(options.root);
      return status(context.io, options);
    },
  },
  clear: {
    summary: 'remove the index files (the next discovery or search rebuilds them; the search index is shared by every root)',
    run: (context, options) => clear(context.io, options),
  },
};

/** Runs a verb on the indexes the flags pick (both without one; the search index only while search is enabled). */
async function runVerb(context: CommandContext, options: IndexCommandOptions, flags: IndexFlags): Promise<void> {
  const named = flags.titles === true || flags.search === true;
  const titles = !named || flags.titles === true;
  const search = named ? flags.search === true : context.resolved.config.search.enabled;
  const reports: { titles?: IndexReport; search?: IndexReport } = {};
  if (titles) reports.titles = await VERBS[options.verb].run(context, options);
  if (search) reports.search = await searchIndexVerbs[options.verb](context, options.root);
  if (options.json) {
    writeJson(context.io, {
      ...(reports.titles === undefined ? {} : { titles: reports.titles.json }),
      ...(reports.search === undefined ? {} : { search: reports.search.json }),
    });
    return;
  }
  writeLines(context.io, [...(reports.titles?.lines ?? []), ...(reports.search?.lines ?? [])]);
}

/** The `index` group's line in the help. */
export const INDEX_GROUP_DESCRIPTION = 'build, inspect or remove the persistent title index and the full-text search index';

/** `sessionctx index <verb>`: the three verbs, each one command (only `build` runs stages, so only it takes `--no-workers`). */
export const indexCommands: readonly CliCommandDefinition<[], IndexFlags>[] = (['build', 'status', 'clear'] as const).map((verb) => ({
  name: ['index', verb],
  usage: {
    description: VERBS[verb].summary,
    examples: [`sessionctx index ${verb} --root ~/.dsh/sessions`, `sessionctx index ${verb} --search --json`],
    workers: verb === 'build',
  },
  options: [
    { flags: '--titles', description: 'only the title index (with --search: both)' },
    { flags: '--search', description: 'only the full-text search index (with --titles: both)' },
  ],
  run: (context: CommandContext, { options }) =>
    runVerb(context, { root: context.resolved.config.root, json: context.json, verb }, options),
}));
