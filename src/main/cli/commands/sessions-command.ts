/**
 * `sessionctx sessions`: the sessions of a root with their titles, newest first.
 */
import type { SessionHeader, SessionTitleSnapshot } from '../../../protocol/events.js';
import { errorCode } from '../error-output.js';
import type { CliIo } from '../cli-io.js';
import { writeJson, writeLines } from '../cli-io.js';
import { openCorpus } from '../open-corpus.js';

/** One row of `sessions --json`. */
export interface SessionListing {
  readonly header: SessionHeader;
  /** The folded title, or `null` when the log has none. */
  readonly title: SessionTitleSnapshot | null;
  /** Present when the title could not be read (the session is still listed). */
  readonly titleError?: { readonly code: string; readonly message: string };
}

/** Options of the `sessions` command. */
export interface SessionsCommandOptions {
  readonly root: string;
  readonly json: boolean;
}

/** Lists every session of the root with its title. */
export async function runSessionsCommand(io: CliIo, options: SessionsCommandOptions, signal?: AbortSignal): Promise<void> {
  const { query } = await openCorpus(options.root, io.env);
  const records = await query.listSessions(signal);
  const titles = await query.readTitleSnapshots(records.map((record) => record.header.id), signal);
  const listings: SessionListing[] = records.map((record, index) => {
    const observation = titles[index];
    if (observation === undefined || observation.status === 'rejected') {
      const reason = observation?.reason;
      return { header: record.header, title: null, titleError: { code: errorCode(reason), message: reason instanceof Error ? reason.message : String(reason) } };
    }
    return { header: record.header, title: observation.value.title ?? null };
  });
  if (options.json) {
    writeJson(io, listings);
    return;
  }
  if (listings.length === 0) {
    writeLines(io, [`no sessions under ${options.root}`]);
    return;
  }
  writeLines(io, listings.map(formatListing));
}

function formatListing(listing: SessionListing): string {
  const created = new Date(listing.header.createdAt).toISOString().replace('T', ' ').slice(0, 19);
  const title = listing.title !== null ? listing.title.title : listing.titleError !== undefined ? `(title unreadable: ${listing.titleError.code})` : '(untitled)';
  const cwd = listing.header.cwd ?? '(no cwd)';
  return `${created}  ${listing.header.id}  ${title}  [${cwd}]`;
}
