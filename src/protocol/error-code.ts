/**
 * The stable code of any thrown value, for reports that must name one (CLI output, warnings, problem lists).
 */

/**
 * The `code` of a thrown value when it carries a string one, else `UNKNOWN`.
 * @param error - anything that was thrown or rejected with.
 * @returns the error's stable code.
 */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : 'UNKNOWN';
}
