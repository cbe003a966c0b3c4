/**
 * A session as an MCP resource (the MCP face's format of a catalog entry): its canonical `dsh-session:` URI, its
 * discovery label as name and title, and a description of where and when it ran.
 */
import { encodeSessionReferenceUri } from '../../../protocol/uri/session-uri.js';
import { escapeDisplayText } from '../../../protocol/uri/display-escape.js';
import type { Candidate } from '../../engine/reference/reference-types.js';

/** The MIME type of a session resource's text: the snapshot message, Markdown framing around tag-safe JSON. */
export const SESSION_RESOURCE_MIME_TYPE = 'text/markdown';

/** One session as an MCP resource (MCP `Resource`, keys in this order). */
export interface SessionResource {
  readonly uri: string;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly mimeType: string;
}

/**
 * `<cwd or (no cwd)> · <ISO created time> · <id>`, control characters escaped as discovery escapes labels.
 * @param candidate - a discovery result (its label and cwd already escaped)
 */
export function describeSession(candidate: Candidate): string {
  return `${candidate.cwd ?? '(no cwd)'} · ${new Date(candidate.createdAt).toISOString()} · ${escapeDisplayText(candidate.sessionId)}`;
}

/** A discovery result as a resource. */
export function sessionResource(candidate: Candidate): SessionResource {
  return {
    uri: encodeSessionReferenceUri(candidate.sessionId),
    name: candidate.label,
    title: candidate.label,
    description: describeSession(candidate),
    mimeType: SESSION_RESOURCE_MIME_TYPE,
  };
}
