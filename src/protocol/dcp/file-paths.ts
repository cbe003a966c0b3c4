/**
 * File paths of a tool call (DCP.md §7.8), used by protection (`protectedFilePatterns`) and dedup (§8.3 rule 2):
 * the top-level string values of `file_path` and `filePath`, and for `apply_patch` every path of an
 * `*** Add File:`, `*** Delete File:` or `*** Update File:` line of `patchText`. Other keys (such as `path`) are
 * not file paths for DCP.
 */
import { isRecord } from '../events.js';

/** The tool whose `patchText` is scanned for file paths. */
export const APPLY_PATCH_TOOL = 'apply_patch';

const PATCH_FILE_LINE_RE = /^\*\*\* (?:Add|Delete|Update) File: (.*)$/;

/** The file paths named by a call's parsed arguments, in order: `file_path`, `filePath`, then patch paths. */
export function filePathsOfArguments(toolName: string, args: unknown): string[] {
  if (!isRecord(args)) return [];
  const paths: string[] = [];
  for (const key of ['file_path', 'filePath']) {
    const value = args[key];
    if (typeof value === 'string') paths.push(value);
  }
  const patchText = args['patchText'];
  if (toolName === APPLY_PATCH_TOOL && typeof patchText === 'string') {
    for (const line of patchText.split('\n')) {
      const match = PATCH_FILE_LINE_RE.exec(line.endsWith('\r') ? line.slice(0, -1) : line);
      const path = match?.[1]?.trim();
      if (path !== undefined && path !== '') paths.push(path);
    }
  }
  return paths;
}

/** The file paths of a call from its raw `arguments` JSON; unparseable arguments name no paths. */
export function filePathsOfCall(toolName: string, rawArguments: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawArguments);
  } catch {
    // Unparseable arguments cannot name a file; the call is then protected only by tool name.
    return [];
  }
  return filePathsOfArguments(toolName, parsed);
}
