/**
 * The one row format of a session in human output, shared by `sessions` and `sessions --query`:
 * `<created UTC>  <id>  <title or label>  [<cwd>]`. Every field is display-escaped, so text from a log can
 * never reach the terminal as a control sequence.
 */
import { escapeDisplayText } from '../../../protocol/uri/display-escape.js';

/** The fields of one row. */
export interface SessionRowFields {
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  readonly id: string;
  /** The title or candidate label; already escaped text is left as it is (escaping is idempotent). */
  readonly label: string;
  readonly cwd: string | undefined;
}

/**
 * One row.
 * @param fields - what the row shows.
 * @returns the row, without a line break.
 */
export function formatSessionRow(fields: SessionRowFields): string {
  const created = Number.isFinite(fields.createdAt) ? new Date(fields.createdAt).toISOString().replace('T', ' ').slice(0, 19) : '(no date)';
  const cwd = fields.cwd === undefined ? '(no cwd)' : escapeDisplayText(fields.cwd);
  return `${created}  ${escapeDisplayText(fields.id)}  ${escapeDisplayText(fields.label)}  [${cwd}]`;
}
