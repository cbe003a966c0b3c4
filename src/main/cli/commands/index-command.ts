/**
 * `sessionctx index build|status|clear`: the persistent title index beside a session root
 * (SESSION-LOG.md §10.7). `build` observes every session's title through the index (an unchanged
 * log costs one stat, an appended one only its new bytes); `status` reports the index file;
 * `clear` removes it (the next discovery rebuilds it).
 */
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { TITLE_INDEX_FILE_NAME, decodeTitleIndex } from '../../corpus/title-index/title-index-file.js';
import { InMemoryLiveRegistry } from '../../corpus/live-registry.js';
import { SessionQuery } from '../../corpus/session-query.js';
import { detectCompression } from '../../store/detect-compression.js';
import { JsonlSessionStore } from '../../store/jsonl-store.js';
import type { CliIo } from '../cli-io.js';
import { writeJson, writeLines } from '../cli-io.js';
import { progressBar } from '../progress-bar.js';
import { UsageError } from '../usage-error.js';

/** The index verbs. */
export type IndexVerb = 'build' | 'status' | 'clear';

/** Options of the `index` command. */
export interface IndexCommandOptions {
  readonly root: string;
  readonly json: boolean;
  readonly verb: string;
}

/** Titles observed per batch, so progress moves and memory stays flat. */
const BUILD_BATCH = 200;

function indexPathOf(root: string): string {
  return join(root, TITLE_INDEX_FILE_NAME);
}

async function build(io: CliIo, options: IndexCommandOptions, signal?: AbortSignal): Promise<void> {
  const store = await JsonlSessionStore.open({ root: options.root, compression: await detectCompression(options.root) });
  const query = new SessionQuery({ registry: new InMemoryLiveRegistry(), storage: store });
  const ids = (await query.listSessions(signal)).map((record) => record.header.id);
  const progress = progressBar(io, 'indexing titles', ids.length);
  let fulfilled = 0;
  const rejected: Array<{ sessionId: string; message: string }> = [];
  for (let start = 0; start < ids.length; start += BUILD_BATCH) {
    for (const observation of await query.readTitleSnapshots(ids.slice(start, start + BUILD_BATCH), signal)) {
      if (observation.status === 'fulfilled') fulfilled += 1;
      else rejected.push({ sessionId: observation.sessionId, message: observation.reason instanceof Error ? observation.reason.message : String(observation.reason) });
    }
    progress.update(Math.min(ids.length, start + BUILD_BATCH));
  }
  progress.finish();
  await store.flushTitleIndex();
  const summary = { root: options.root, indexPath: indexPathOf(options.root), sessions: ids.length, fulfilled, rejected, stats: store.titleIndexStats ?? null };
  if (options.json) {
    writeJson(io, summary);
    return;
  }
  writeLines(io, [
    `indexed ${ids.length} session${ids.length === 1 ? '' : 's'} under ${options.root}`,
    `index file: ${summary.indexPath}`,
    ...(summary.stats === null ? [] : [`answered: ${Object.entries(summary.stats).map(([kind, count]) => `${kind} ${String(count)}`).join(', ')}`]),
    ...rejected.map((failure) => `unreadable: ${failure.sessionId}: ${failure.message}`),
  ]);
}

async function status(io: CliIo, options: IndexCommandOptions): Promise<void> {
  const path = indexPathOf(options.root);
  const stats = await stat(path).catch((error: unknown) => {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw error;
  });
  const entries = stats === undefined ? undefined : decodeTitleIndex(await readFile(path));
  const report = {
    root: options.root,
    indexPath: path,
    exists: stats !== undefined,
    bytes: stats?.size ?? 0,
    valid: stats === undefined ? null : entries !== undefined,
    entries: entries?.size ?? 0,
    modified: stats === undefined ? null : stats.mtime.toISOString(),
  };
  if (options.json) {
    writeJson(io, report);
    return;
  }
  if (!report.exists) {
    writeLines(io, [`no title index at ${path}; run sessionctx index build --root ${options.root}`]);
    return;
  }
  writeLines(io, [
    `title index ${path}`,
    report.valid === true ? `${report.entries} entries, ${report.bytes} bytes, written ${report.modified}` : `unreadable or of another version (${report.bytes} bytes): it will be discarded and rebuilt`,
  ]);
}

async function clear(io: CliIo, options: IndexCommandOptions): Promise<void> {
  const path = indexPathOf(options.root);
  const existed = await stat(path).then(
    () => true,
    () => false,
  );
  await rm(path, { force: true });
  if (options.json) writeJson(io, { indexPath: path, removed: existed });
  else writeLines(io, [existed ? `removed ${path}` : `no title index at ${path}`]);
}

/** Runs one index verb. */
export async function runIndexCommand(io: CliIo, options: IndexCommandOptions, signal?: AbortSignal): Promise<void> {
  switch (options.verb) {
    case 'build':
      return build(io, options, signal);
    case 'status':
      return status(io, options);
    case 'clear':
      return clear(io, options);
    default:
      throw new UsageError(`unknown index verb ${JSON.stringify(options.verb)}; use build, status or clear`);
  }
}
