/**
 * vitest globalSetup: installs sessionctx into this package as a user installs it, from the tarball `npm pack` makes
 * of the repository (so `sessionctx/dsh` is what ships: the package's `exports`, `files` and built `dist/`). The
 * tarball is unpacked into `node_modules/sessionctx` as a real directory, so the host's `@deepseek-ai/*` packages of
 * this folder are the ones sessionctx's optional peer dependencies resolve to, while its own dependencies (piscina,
 * zod, …) resolve from the repository's `node_modules` further up. Also points the user cache directory at a
 * temporary folder for the run, so no test writes into the real one.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const REPO = join(PACKAGE, '..', '..');

/**
 * Packs the repository and unpacks the tarball into each package folder's `node_modules/sessionctx` (replacing what
 * is there; default: this package's). Returns the temporary folder the tarball was written to (removed by the caller).
 * `test/dsh-host-rc6/` calls it too, for its own folder and this one.
 */
export function installPackedSessionctx(packages: readonly string[] = [PACKAGE]): string {
  if (!existsSync(join(REPO, 'dist', 'src', 'dsh', 'index.js'))) {
    throw new Error('test/dsh-host: build the repository first (`npm run build` at its root; `npm test` does)');
  }
  const work = mkdtempSync(join(tmpdir(), 'sessionctx-pack-'));
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: REPO,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  ) as Array<{ filename: string }>;
  const tarball = join(work, (packed[0] as { filename: string }).filename);
  for (const target of packages) {
    const installed = join(target, 'node_modules', 'sessionctx');
    rmSync(installed, { recursive: true, force: true });
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  }
  return work;
}

/** The globalSetup: installs the packed package and sets a temporary user cache directory for the run. */
export default function setup(): () => void {
  const work = installPackedSessionctx();
  const cache = join(work, 'cache');
  mkdirSync(cache);
  process.env.XDG_CACHE_HOME = cache;
  return () => rmSync(work, { recursive: true, force: true });
}
