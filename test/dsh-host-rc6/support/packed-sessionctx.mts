/**
 * vitest globalSetup: installs sessionctx from the tarball `npm pack` makes of the repository, as a user installs it,
 * into this package's `node_modules/sessionctx` — and into `test/dsh-host/node_modules/sessionctx`, where the rc.8
 * side of the cross-release comparison (`../dsh-host/support/dcp-kit-rc8.mts`, loaded from there) resolves it. The
 * tarball is unpacked as a real directory, so the host's `@deepseek-ai/*` packages of each folder are the ones
 * sessionctx's optional peer dependencies resolve to, while its own dependencies resolve from the repository's
 * `node_modules` further up. The user cache directory is a temporary folder for the run.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installPackedSessionctx } from '../../dsh-host/support/packed-sessionctx.mts';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const REPO = join(PACKAGE, '..', '..');
const RC8_PACKAGE = join(REPO, 'test', 'dsh-host');

export default function setup(): () => void {
  if (!existsSync(join(RC8_PACKAGE, 'node_modules', '@deepseek-ai', 'dsh-agent-loop'))) {
    throw new Error('test/dsh-host-rc6: install test/dsh-host too (`npm ci` there): the cross-release comparison runs its rc.8 host');
  }
  // The packing is test/dsh-host's (it checks the build too), into both folders.
  const work = installPackedSessionctx([PACKAGE, RC8_PACKAGE]);
  const cache = join(work, 'cache');
  mkdirSync(cache);
  process.env.XDG_CACHE_HOME = cache;
  return () => rmSync(work, { recursive: true, force: true });
}
