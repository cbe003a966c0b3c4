/**
 * `sessionctx sessions`: the sessions of a root with their titles, in listing order. Damaged artifacts the
 * listing skipped are reported once each on stderr (and as `problems` with `--json`); every healthy session is
 * still listed. With `--query Q` (or `--target ID`, `--cwd DIR`, `--limit N`) it is discovery instead: the
 * sessions a message could cite, ranked as the reference service ranks them, each with its canonical mention.
 */
import type { SessionHeader, SessionTitleSnapshot } from '../../../../protocol/events.js';
import { errorCode } from '../../../../protocol/error-code.js';
import type { MentionCandidate } from '../../../engine/reference/reference-types.js';
import type { CliCommandDefinition } from '../cli-command.js';
import type { CommandContext } from '../command-context.js';
import { parseCountOption } from '../count-option.js';
import { writeJson, writeLines } from '../cli-io.js';
import { nestedSessionRoots } from '../nested-roots.js';
import { withCatalog } from '../open-engine.js';
import { progressListener } from '../progress-bar.js';
import { diagnosticPrefix } from '../terminal-style.js';
import { escapeTerminalText } from '../../../../protocol/uri/display-escape.js';
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
async function listSessions(context: CommandContext): Promise<void> {
  const { io, signal } = context;
  await withCatalog(
    context,
    async ({ catalog }) => {
      const { records, problems } = await catalog.listingReport(signal);
      const titles = await catalog.titleSnapshots(
        records.map((record) => record.header.id),
        signal,
      );
      const listings: SessionListing[] = records.map((record, index) => {
        const observation = titles[index];
        if (observation === undefined || observation.status === 'rejected') {
          const reason = observation?.reason;
          return {
            header: record.header,
            title: null,
            titleError: { code: errorCode(reason), message: reason instanceof Error ? reason.message : String(reason) },
          };
        }
        return { header: record.header, title: observation.value.title ?? null };
      });
      if (context.json) {
        writeJson(io, { sessions: listings, problems });
        return;
      }
      if (listings.length === 0) {
        const { root } = context.resolved.config;
        writeLines(io, [`no sessions under ${root}`]);
        if (problems.length === 0) await hintNestedRoots(context, root);
        return;
      }
      writeLines(io, listings.map(formatListing));
    },
    { onListingProgress: progressListener(io, 'reading sessions', 'erase') },
  );
}

/** On stderr, when an empty root holds session roots one level down: which, and how to list them. */
async function hintNestedRoots(context: CommandContext, root: string): Promise<void> {
  const nested = await nestedSessionRoots(root);
  if (nested.length === 0) return;
  const { io } = context;
  const text = `hint: ${root} looks one level too shallow: ${nested.join(', ')} ${nested.length === 1 ? 'holds' : 'hold'} project directories; try --root ${nested[0]}`;
  io.stderr.write(`${diagnosticPrefix(io, 'warning')}${escapeTerminalText(text)}\n`);
}

function formatListing(listing: SessionListing): string {
  const label =
    listing.title !== null
      ? listing.title.title
      : listing.titleError !== undefined
        ? `(title unreadable: ${listing.titleError.code})`
        : '(untitled)';
  return formatSessionRow({ createdAt: listing.header.createdAt, id: listing.header.id, label, cwd: listing.header.cwd });
}

/** Options of candidate discovery. */
interface DiscoveryOptions {
  readonly query: string;
  /** The citing session: excluded from the results; its cwd drives the ranking. */
  readonly target?: string | undefined;
  /** Overrides the target's cwd for ranking. */
  readonly cwd?: string | undefined;
  /** How many candidates at most (default: the configured `candidateLimit`). */
  readonly limit?: number | undefined;
}

/**
 * Prints the candidates (`listCandidates` semantics) with their mentions, in the `sessions` row format.
 * @param context - the parsed command context.
 * @param options - the discovery flags.
 */
async function listCandidates(context: CommandContext, options: DiscoveryOptions): Promise<void> {
  const { io, signal } = context;
  await withCatalog(
    context,
    async ({ catalog }) => {
      // The listing's problems are reported on stderr by the engine; with --json they are part of the answer too.
      const { problems } = await catalog.listingReport(signal);
      const target = await catalog.readerFor(options.target, options.cwd, signal);
      const limit = options.limit ?? context.resolved.config.candidateLimit;
      const candidates: MentionCandidate[] = await catalog.candidates(target, options.query, limit, signal);
      if (context.json) {
        writeJson(io, { candidates, problems });
        return;
      }
      if (candidates.length === 0) {
        writeLines(io, [`no sessions match ${JSON.stringify(options.query)}`]);
        return;
      }
      writeLines(
        io,
        candidates.flatMap((candidate) => [
          formatSessionRow({ createdAt: candidate.createdAt, id: candidate.sessionId, label: candidate.label, cwd: candidate.cwd }),
          `  ${candidate.mention}`,
        ]),
      );
    },
    { onListingProgress: progressListener(io, 'reading sessions', 'erase') },
  );
}

/** The options of `sessions`. */
export interface SessionsOptions {
  readonly query?: string;
  readonly target?: string;
  readonly cwd?: string;
  readonly limit?: number;
}

/** `sessionctx sessions [--query Q] [--target ID] [--cwd DIR] [--limit N]`. */
export const sessionsCommand: CliCommandDefinition<[], SessionsOptions> = {
  name: ['sessions'],
  usage: {
    description:
      'list the sessions of a root with their titles; with --query (or --target/--cwd/--limit), the ranked sessions a message could cite, each with its mention',
    examples: [
      'sessionctx sessions --root ~/.dsh/sessions',
      'sessionctx sessions --query "billing" --cwd ~/projects/webshop --limit 5',
      'sessionctx sessions --json | jq ".sessions[].header.id"',
    ],
  },
  options: [
    { flags: '--query <text>', description: 'discovery: match titles and ids against this text (an empty query lists the most relevant)' },
    {
      flags: '--target <id>',
      description: 'discovery: the citing session (excluded from the results; its cwd ranks); an id or unambiguous prefix',
    },
    { flags: '--cwd <dir>', description: 'discovery: rank as if citing from this working directory' },
    { flags: '--limit <n>', description: 'discovery: how many candidates at most', parse: parseCountOption, configKey: 'candidateLimit' },
  ],
  run(context, { options }) {
    const discovery =
      options.query !== undefined || options.target !== undefined || options.cwd !== undefined || options.limit !== undefined;
    if (!discovery) return listSessions(context);
    return listCandidates(context, { query: options.query ?? '', target: options.target, cwd: options.cwd, limit: options.limit });
  },
};
