/**
 * `sessionctx mention <id> [--label L]`: the canonical mention a host inserts for a session. The id (exact, or an
 * unambiguous prefix) is resolved through the root like every other id the CLI takes, so the mention always names
 * a session that exists there: a prefix is printed as the full id it names, and an id that names no session, or a
 * root that does not exist, is a failure (exit 1), as `git rev-parse --verify` refuses a name it cannot resolve.
 * Without `--label`, the session's title is the label; a session whose title cannot be read (or that has none)
 * gets the id alone, as dsh's formatter writes it.
 */
import type { SessionId } from '../../../../protocol/events.js';
import { encodeSessionReferenceUri } from '../../../../protocol/uri/session-uri.js';
import { formatSessionReferenceMention } from '../../../../protocol/uri/mention-formatter.js';
import type { CliCommandDefinition } from '../cli-command.js';
import type { CommandContext } from '../command-context.js';
import { writeJson, writeLines } from '../cli-io.js';
import { withCatalog } from '../open-engine.js';
import { observedTitle } from '../../../engine/corpus/discovery-label.js';

/** What `mention` needs. */
interface MentionRequest {
  readonly id: string;
  readonly label?: string | undefined;
}

/**
 * The session a typed id names, and its title when the label is not given.
 * @throws CliError `CLI_ROOT_NOT_FOUND`, `CLI_SESSION_ID_AMBIGUOUS`; the store's error for a damaged log; else
 *   `SESSION_QUERY_SESSION_NOT_FOUND`.
 */
async function mentioned(
  context: CommandContext,
  typed: string,
  wantsTitle: boolean,
): Promise<{ id: SessionId; title: string | undefined }> {
  return withCatalog(context, async ({ catalog }) => {
    const { id } = (await catalog.requireRecord(typed, context.signal)).header;
    if (!wantsTitle) return { id, title: undefined };
    const [observation] = await catalog.titleSnapshots([id], context.signal);
    return { id, title: observedTitle(observation) };
  });
}

/**
 * Prints `@[label](dsh-session:…)` (label display-escaped), or with `--json` `{sessionId, label?, uri, mention}`.
 * @param context - the parsed command context.
 * @param options - the id and the optional label.
 */
async function printMention(context: CommandContext, options: MentionRequest): Promise<void> {
  const found = await mentioned(context, options.id, options.label === undefined);
  const sessionId = found.id;
  const label = options.label ?? found.title;
  const mention = formatSessionReferenceMention(label === undefined ? { sessionId } : { sessionId, label });
  if (context.json) {
    writeJson(context.io, { sessionId, ...(label !== undefined ? { label } : {}), uri: encodeSessionReferenceUri(sessionId), mention });
    return;
  }
  writeLines(context.io, [mention]);
}

/** `sessionctx mention <id> [--label L]`. */
export const mentionCommand: CliCommandDefinition<[id: string], { readonly label?: string }> = {
  name: ['mention'],
  usage: {
    description:
      'print the canonical mention @[label](dsh-session:…) of a session of the root; the label is its title unless --label is given',
    arguments: [{ name: '<id>', description: 'a session id of the root, or an unambiguous prefix of one (printed as the full id)' }],
    examples: [
      'sessionctx mention session-9d029d81-e515-48ac-b168-fef7011f3491',
      'sessionctx mention 9d029d81 --label "the webshop work"',
      'sessionctx mention a7eb71e0 --json',
    ],
  },
  options: [{ flags: '--label <text>', description: "the visible label (default: the session's title, else the id)" }],
  run(context, { args: [id], options }) {
    return printMention(context, { id, label: options.label });
  },
};
