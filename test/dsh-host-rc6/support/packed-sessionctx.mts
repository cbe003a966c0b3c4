/**
 * vitest globalSetup: installs sessionctx from the tarball `npm pack` makes of the repository, as a user installs it,
 * into this package's `node_modules/sessionctx` — and into `test/dsh-host/node_modules/sessionctx`, where the rc.8
 * side of the cross-release comparison (`../dsh-host/support/dcp-kit-rc8.mts`, loaded from there) resolves it. The
 * tarball is unpacked as a real directory, so the host's `@deepseek-ai/*` packages of each folder are the ones
 * sessionctx's optional peer dependencies resolve to, while its own dependencies resolve from the repository's
 * `node_modules` further up. The user cache directory is a temporary folder for the run.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const REPO = join(PACKAGE, '..', '..');
const RC8_PACKAGE = join(REPO, 'test', 'dsh-host');

export default function setup(): () => void {
  if (!existsSync(join(REPO, 'dist', 'src', 'dsh-dcp', 'index.js'))) {
    throw new Error('test/dsh-host-rc6: build the repository first (`npm run build` at its root; `npm test` does)');
  }
  if (!existsSync(join(RC8_PACKAGE, 'node_modules', '@deepseek-ai', 'dsh-agent-loop'))) {
    throw new Error('test/dsh-host-rc6: install test/dsh-host too (`npm ci` there): the cross-release comparison runs its rc.8 host');
  }
  const work = mkdtempSync(join(tmpdir(), 'sessionctx-pack-rc6-'));
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: REPO,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  ) as Array<{ filename: string }>;
  const tarball = join(work, (packed[0] as { filename: string }).filename);
  for (const target of [PACKAGE, RC8_PACKAGE]) {
    const installed = join(target, 'node_modules', 'sessionctx');
    rmSync(installed, { recursive: true, force: true });
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  }
  const cache = join(work, 'cache');
  mkdirSync(cache);
  process.env.XDG_CACHE_HOME = cache;
  return () => rmSync(work, { recursive: true, force: true });
}
