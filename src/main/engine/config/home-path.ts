/**
 * `~` in configured paths. A shell expands `~` in a command's words, but not inside a JSON config file, an
 * environment variable set with quotes (`SESSIONCTX_ROOT='~/x'`) or `--root=~/x`; sessionctx expands it itself
 * wherever it takes a path, so every source of a path means the same thing.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The user's home directory: `$HOME` when set and non-empty, else the operating system's answer.
 * @param env - the environment the path came with.
 */
export function homeDirectory(env: NodeJS.ProcessEnv): string {
  const home = env.HOME;
  return home !== undefined && home !== '' ? home : homedir();
}

/**
 * Expands a leading `~` (alone, or followed by `/`) to the home directory. `~user` forms and `~` elsewhere in
 * the path are left as they are: they name a literal directory.
 * @param path - a path as configured.
 * @param env - the environment that supplies `HOME`.
 * @returns the path with its leading `~` expanded.
 */
export function expandHome(path: string, env: NodeJS.ProcessEnv): string {
  if (path === '~') return homeDirectory(env);
  if (path.startsWith('~/')) return join(homeDirectory(env), path.slice(2));
  return path;
}
