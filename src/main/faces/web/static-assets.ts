/**
 * The built page's files (`dist/web/` by default): a request path maps to a file strictly inside the assets
 * directory or to nothing. Decoded `..`, backslashes, NUL and symbolic links that lead outside are refused, so no
 * path can read another file of the machine. Paths without an extension that name no file get `index.html` (the
 * page routes on the client); a missing file with an extension is a 404.
 */
import { realpath, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebServerError } from './web-server-error.js';

/** The content types of the files a Vite build writes. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The package's built page: `dist/web/` beside `dist/src/` (this module is `dist/src/main/faces/web/static-assets.js`).
 */
export function defaultAssetsDir(): string {
  return fileURLToPath(new URL('../../../../web/', import.meta.url));
}

/** A file to serve. */
export interface ResolvedAsset {
  readonly path: string;
  readonly contentType: string;
  readonly size: number;
}

/** The regular file at `path` inside `realRoot`, or `undefined`. */
async function fileInside(realRoot: string, path: string): Promise<ResolvedAsset | undefined> {
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    // No such file (or an unreadable parent): the caller decides between a fallback and a 404.
    return undefined;
  }
  if (!real.startsWith(realRoot + sep)) return undefined;
  const info = await stat(real).catch(() => undefined);
  if (info === undefined || !info.isFile()) return undefined;
  return { path: real, contentType: CONTENT_TYPES[extname(real).toLowerCase()] ?? 'application/octet-stream', size: info.size };
}

/**
 * The file a request path names.
 * @param assetsDir - the assets directory.
 * @param pathname - the request URL's path (still percent-encoded).
 * @returns the file to serve.
 * @throws WebServerError `WEB_BAD_REQUEST` for an undecodable path or one with `..`, `\` or NUL; `WEB_NOT_FOUND`
 *   for a missing file with an extension, or a missing `index.html`.
 */
export async function resolveAsset(assetsDir: string, pathname: string): Promise<ResolvedAsset> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch (error) {
    throw new WebServerError('WEB_BAD_REQUEST', `the path ${JSON.stringify(pathname)} is not valid percent-encoding`, { cause: error });
  }
  const segments = decoded.split('/');
  if (decoded.includes('\\') || decoded.includes('\u0000') || segments.some((segment) => segment === '..')) {
    throw new WebServerError('WEB_BAD_REQUEST', `the path ${JSON.stringify(pathname)} leaves the page's directory`);
  }
  const realRoot = await realpath(resolve(assetsDir)).catch(() => resolve(assetsDir));
  const relative = segments.filter((segment) => segment !== '' && segment !== '.');
  if (relative.length > 0) {
    const found = await fileInside(realRoot, join(realRoot, ...relative));
    if (found !== undefined) return found;
    if (extname(relative[relative.length - 1] as string) !== '') {
      throw new WebServerError('WEB_NOT_FOUND', `no file ${JSON.stringify(decoded)}`);
    }
  }
  const index = await fileInside(realRoot, join(realRoot, 'index.html'));
  if (index === undefined) {
    throw new WebServerError('WEB_NOT_FOUND', `the page is not built: no index.html in ${assetsDir}`);
  }
  return index;
}
