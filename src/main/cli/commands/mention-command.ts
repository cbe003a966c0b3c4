/**
 * `sessionctx mention <id> [--label L]`: the canonical mention a host inserts for a session.
 */
import { encodeSessionReferenceUri } from '../../../protocol/uri/session-uri.js';
import { formatSessionReferenceMention } from '../../../protocol/uri/mention-formatter.js';
import type { CliIo } from '../cli-io.js';
import { writeJson, writeLines } from '../cli-io.js';

/** Options of the `mention` command. */
export interface MentionCommandOptions {
  readonly id: string;
  readonly label?: string;
  readonly json: boolean;
}

/** Prints `@[label](dsh-session:…)` (label display-escaped), or with `--json` `{sessionId, label?, uri, mention}`. */
export function runMentionCommand(io: CliIo, options: MentionCommandOptions): void {
  const mention = formatSessionReferenceMention(options.label === undefined ? { sessionId: options.id } : { sessionId: options.id, label: options.label });
  if (options.json) {
    writeJson(io, { sessionId: options.id, ...(options.label !== undefined ? { label: options.label } : {}), uri: encodeSessionReferenceUri(options.id), mention });
    return;
  }
  writeLines(io, [mention]);
}
