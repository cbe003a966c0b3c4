/**
 * `sessionctx index build|status|clear`: the persistent title index of a session root
 * (SESSION-LOG.md §10.7), kept in the user cache directory. `build` observes every session's title
 * through the index (an unchanged log costs one stat, an appended one only its new bytes) and prunes
 * entries of deleted sessions; `status` reports the index file; `clear` removes it (the next
 * discovery rebuilds it). Every verb names the file, found by the same function the store asks
 * ({@link resolveTitleIndexLocation}) with the command's environment (`CliIo.env`).
 */
import { readFile, rm, stat } from 'node:fs/promises';
import { resolveTitleIndexLocation, type TitleIndexLocation } from '../../config/cache-location.js';
import { decodeTitleIndex } from '../../corpus/title-index/title-index-file.js';
import type { CliIo } from '../cli-io.js';
import type { CliCommandDefinition } from '../cli-command.js';
import type { CommandContext } from '../command-context.js';
import { assertRootExists, withEngine } from '../open-engine.js';
import { writeJson, writeLines } from '../cli-io.js';
import { progressBar } from '../progress-bar.js';
import { CliError } from '../cli-error.js';

/** The index verbs. */
export type IndexVerb = 'build' | 'status' | 'clear';

/** What a verb needs. */
interface IndexCommandOptions {
  readonly root: string;
  readonly json: boolean;
  readonly verb: IndexVerb;
}

/** Titles observed per batch, so progress moves and memory stays flat. */
const BUILD_BATCH = 200;

/** The index location of the command's root, with the command's environment. */
function locationOf(io: CliIo, options: IndexCommandOptions): Promise<TitleIndexLocation> {
  return resolveTitleIndexLocation(options.root, { env: io.env });
}

/** What the verbs print when no cache directory can be determined (the index then lives in memory only). */
const NO_CACHE = 'no cache directory (set XDG_CACHE_HOME or HOME): the title index is kept in memory only';

async function build(context: CommandContext, options: IndexCommandOptions): Promise<void> {
  const { io, signal } = context;
  const { ids, fulfilled, rejected, store } = await withEngine(context, async (engine) => {
    const store = engine.store;
    if (store === undefined) throw new TypeError('index build needs a session root');
    const listed = (await engine.listSessions(signal)).map((record) => record.header.id);
    const progress = progressBar(io, 'indexing titles', listed.length);
    let observed = 0;
    const failures: Array<{ sessionId: string; message: string }> = [];
    for (let start = 0; start < listed.length; start += BUILD_BATCH) {
      for (const observation of await engine.readTitleSnapshots(listed.slice(start, start + BUILD_BATCH), signal)) {
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
  if (options.json) {
    writeJson(io, summary);
    return;
  }
  writeLines(io, [
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
  ]);
}

async function status(io: CliIo, options: IndexCommandOptions): Promise<void> {
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
  if (options.json) {
    writeJson(io, report);
    return;
  }
  if (path === undefined) {
    writeLines(io, [NO_CACHE]);
    return;
  }
  if (!report.exists) {
    writeLines(io, [`no title index at ${path}; run sessionctx index build --root ${options.root}`]);
    return;
  }
  writeLines(io, [
    `title index ${path}`,
    report.valid === true
      ? `${report.entries} entries, ${report.bytes} bytes, written ${report.modified}`
      : `unreadable, of another version or of another root (${report.bytes} bytes): it will be discarded and rebuilt`,
  ]);
}

async function clear(io: CliIo, options: IndexCommandOptions): Promise<void> {
  const { indexPath: path } = await locationOf(io, options);
  const existed =
    path !== undefined &&
    (await stat(path).then(
      () => true,
      () => false,
    ));
  if (path !== undefined) await rm(path, { force: true });
  if (options.json) writeJson(io, { indexPath: path ?? null, removed: existed });
  else writeLines(io, [path === undefined ? NO_CACHE : existed ? `removed ${path}` : `no title index at ${path}`]);
}

/** What each verb does, and its line in the help. */
interface VerbSpec {
  readonly summary: string;
  readonly run: (context: CommandContext, options: IndexCommandOptions) => Promise<void>;
}

const VERBS: Readonly<Record<IndexVerb, VerbSpec>> = {
  build: {
    summary: "observe every session's title through the index (an unchanged log costs one stat); a progress bar on a terminal",
    run: build,
  },
  status: {
    summary: 'say where the index is, how many entries it holds and whether it is valid',
    run: async (context, options) => {
      await assertRootExists(options.root);
      return status(context.io, options);
    },
  },
  clear: {
    summary: "remove this root's index (the next discovery rebuilds it)",
    run: (context, options) => clear(context.io, options),
  },
};

/** The `index` group's line in the help. */
export const INDEX_GROUP_DESCRIPTION = 'build, inspect or remove the persistent title index that makes discovery fast';

/** `sessionctx index <verb>`: the three verbs, each one command (only `build` runs stages, so only it takes `--no-workers`). */
export const indexCommands: readonly CliCommandDefinition<[]>[] = (['build', 'status', 'clear'] as const).map((verb) => ({
  name: ['index', verb],
  usage: { description: VERBS[verb].summary, examples: [`sessionctx index ${verb} --root ~/.dsh/sessions`], workers: verb === 'build' },
  options: [],
  run: (context: CommandContext) => VERBS[verb].run(context, { root: context.resolved.config.root, json: context.json, verb }),
}));
