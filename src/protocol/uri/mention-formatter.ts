/**
 * The canonical mention formatter (SESSION-REFERENCE.md §6.2): `@[<label>](dsh-session:…)` with the
 * label display-escaped (D5) and `\`/`]` backslash-escaped so that the parser recovers it exactly.
 */
import { escapeDisplayText } from './display-escape.js';
import { encodeSessionReferenceUri } from './session-uri.js';

/** Input of {@link formatSessionReferenceMention}. */
export interface SessionReferenceMentionInput {
  /** The referenced session id; the URI always carries it raw. */
  readonly sessionId: string;
  /** The visible label; absent (or `null`) means the id. An empty label stays empty. */
  readonly label?: string | undefined;
}

const LABEL_SYNTAX = /[\\\]]/g;

/**
 * `@[` + label + `](` + canonical URI + `)`. For labels without characters of E the output is
 * byte-identical to dsh's formatter; with them, the controls appear as visible `\u{XXXX}` escapes
 * (whose backslash is then escaped like any other).
 */
export function formatSessionReferenceMention(input: SessionReferenceMentionInput): string {
  const visible = escapeDisplayText(input.label ?? input.sessionId);
  const label = visible.replace(LABEL_SYNTAX, (character) => `\\${character}`);
  return `@[${label}](${encodeSessionReferenceUri(input.sessionId)})`;
}
