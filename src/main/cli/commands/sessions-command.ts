/**
 * `sessionctx sessions`: the sessions of a root with their titles, in listing order. Damaged artifacts the
 * listing skipped are reported once each on stderr (and as `problems` with `--json`); every healthy session is
 * still listed.
 */
import type { SessionHeader, SessionTitleSnapshot } from '../../../protocol/events.js';
import { errorCode } from '../../../protocol/error-code.js';
import type { CommandContext } from '../command-context.js';
import { writeJson, writeLines } from '../cli-io.js';
import { withEngine } from '../open-engine.js';
import { formatSessionRow } from '../session-row.js';

/** One row of `sessions --json`. */
export interface SessionListing {
  readonly header: SessionHeader;
  /** The folded title, or `null` when the log has none. */
  readonly title: SessionTitleSnapshot | null;
  /** Present when the title could not be read (the session is still listed). */
  readonly titleError?: { readonly code: string; readonly message: string };
}

/**
 * Lists every session of the root with its title.
 * @param context - the parsed command context.
 */
export async function runSessionsCommand(context: CommandContext): Promise<void> {
  const { io, signal } = context;
  await withEngine(context, async (engine) => {
    const { records, problems } = await engine.listSessionsReport(signal);
    const titles = await engine.readTitleSnapshots(records.map((record) => record.header.id), signal);
    const listings: SessionListing[] = records.map((record, index) => {
      const observation = titles[index];
      if (observation === undefined || observation.status === 'rejected') {
        const reason = observation?.reason;
        return { header: record.header, title: null, titleError: { code: errorCode(reason), message: reason instanceof Error ? reason.message : String(reason) } };
      }
      return { header: record.header, title: observation.value.title ?? null };
    });
    if (context.json) {
      writeJson(io, { sessions: listings, problems });
      return;
    }
    if (listings.length === 0) {
      writeLines(io, [`no sessions under ${context.resolved.config.root}`]);
      return;
    }
    writeLines(io, listings.map(formatListing));
  });
}

function formatListing(listing: SessionListing): string {
  const label = listing.title !== null ? listing.title.title : listing.titleError !== undefined ? `(title unreadable: ${listing.titleError.code})` : '(untitled)';
  return formatSessionRow({ createdAt: listing.header.createdAt, id: listing.header.id, label, cwd: listing.header.cwd });
}
