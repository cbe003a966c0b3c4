/**
 * How a person runs this very `sessionctx` again, for the commands the CLI suggests ("keep exploring", "inspect it
 * with"): `sessionctx` is on the PATH only when the package is installed globally or linked; in a checkout it is
 * `node dist/src/main/faces/cli/bin.js`, and in a project that installed it, `npx sessionctx`. The form is taken from the
 * script this process runs, so a printed command works where it was printed.
 */
import { basename, isAbsolute, relative, sep } from 'node:path';

/**
 * The command prefix that runs this executable from `cwd`.
 * @param script - the script this process runs (`process.argv[1]`).
 * @param cwd - the directory the suggestion is for.
 * @returns `sessionctx` (a bin link on the PATH), `npx sessionctx` (an installed package), or `node <path>` (a
 *   checkout; the path relative to `cwd` when it lies below it).
 */
export function cliInvocation(script: string | undefined, cwd: string): string {
  if (script === undefined) return 'sessionctx';
  const parts = script.split(sep);
  if (parts.includes('node_modules')) return 'npx sessionctx';
  if (basename(script) === 'sessionctx') return 'sessionctx';
  const below = relative(cwd, script);
  const path = below !== '' && !below.startsWith('..') && !isAbsolute(below) ? below : script;
  return `node ${/\s/.test(path) ? JSON.stringify(path) : path}`;
}
