/**
 * `sessionctx mention <id> [--label L]`: the canonical mention a host inserts for a session. Without
 * `--label`, the session's title is the label when the root can be read and names the session (an exact id or
 * an unambiguous prefix); otherwise the mention carries the id alone, as dsh's formatter does.
 */
import type { SessionId } from '../../../protocol/events.js';
import { asSessionId } from '../../../protocol/events.js';
import { encodeSessionReferenceUri } from '../../../protocol/uri/session-uri.js';
import { formatSessionReferenceMention } from '../../../protocol/uri/mention-formatter.js';
import type { CliCommandDefinition } from '../cli-command.js';
import type { CommandContext } from '../command-context.js';
import { writeJson, writeLines } from '../cli-io.js';
import { withEngine } from '../open-engine.js';
import { resolveSessionId } from '../session-id-prefix.js';

/** What `mention` needs. */
interface MentionRequest {
  readonly id: string;
  readonly label?: string | undefined;
}

/** The session a typed id names and its title, when the root can tell; `undefined` when it cannot. */
async function lookUpTitle(context: CommandContext, typed: string): Promise<{ id: SessionId; title: string | undefined } | undefined> {
  try {
    return await withEngine(context, async (engine) => {
      const id = await resolveSessionId(engine, typed, context.signal);
      if (id === undefined) return undefined;
      const [observation] = await engine.readTitleSnapshots([id], context.signal);
      return { id, title: observation?.status === 'fulfilled' ? observation.value.title?.title : undefined };
    });
  } catch (error) {
    // An ambiguous prefix is the user's to fix; anything else (no root, an unreadable root or log) only means
    // the label cannot be looked up, and a mention of the id as typed is still correct.
    if ((error as { code?: unknown }).code === 'CLI_SESSION_ID_AMBIGUOUS') throw error;
    return undefined;
  }
}

/**
 * Prints `@[label](dsh-session:…)` (label display-escaped), or with `--json` `{sessionId, label?, uri, mention}`.
 * @param context - the parsed command context.
 * @param options - the id and the optional label.
 */
async function printMention(context: CommandContext, options: MentionRequest): Promise<void> {
  const found = options.label === undefined ? await lookUpTitle(context, options.id) : undefined;
  const sessionId = found?.id ?? asSessionId(options.id);
  const label = options.label ?? found?.title;
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
    description: 'print the canonical mention @[label](dsh-session:…) for a session; the label is its title when the root names it',
    arguments: [{ name: '<id>', description: 'a session id, or an unambiguous prefix of a listed one' }],
    examples: ['sessionctx mention session-9d029d81-e515-48ac-b168-fef7011f3491', 'sessionctx mention 9d029d81 --label "the webshop work"'],
  },
  options: [{ flags: '--label <text>', description: "the visible label (default: the session's title, else the id)" }],
  run(context, { args: [id], options }) {
    return printMention(context, { id, label: options.label });
  },
};
