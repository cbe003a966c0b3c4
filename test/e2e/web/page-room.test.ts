/**
 * ARCHITECTURE.md "Rooms": `web/` is the browser's room. Its files import their own code, Preact, markdown-it, DOMPurify and only types from
 * `src/protocol/web/` and the search contract it uses, never a value of `src/` (which would drag Node code into the
 * bundle or let the page drift from the server's contract by copying it).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/fixtures.js';

const WEB_SRC = join(REPO_ROOT, 'web', 'src');
const SHARED_TYPES = new Set(['src/protocol/web/web-api.js', 'src/protocol/search-types.js']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Every `import … from '…'` / `import '…'` of a file, with whether it is type-only. */
function importsOf(text: string): { specifier: string; typeOnly: boolean }[] {
  const out: { specifier: string; typeOnly: boolean }[] = [];
  for (const match of text.matchAll(/^import\s+(type\s+)?(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/gms))
    out.push({ specifier: match[2]!, typeOnly: match[1] !== undefined });
  return out;
}

describe('the web/ room', () => {
  it('imports only its own code, preact, markdown-it, dompurify and types of src/protocol/web', () => {
    const offending: string[] = [];
    const files = sourceFiles(WEB_SRC);
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      for (const { specifier, typeOnly } of importsOf(readFileSync(file, 'utf8'))) {
        if (specifier === 'preact' || specifier.startsWith('preact/')) continue;
        // The Markdown renderer's two libraries (ARCHITECTURE.md, dependencies), bundled into its chunk.
        if (specifier === 'markdown-it' || specifier === 'dompurify') continue;
        if (!specifier.startsWith('.')) {
          offending.push(`${relative(REPO_ROOT, file)}: package ${specifier}`);
          continue;
        }
        const target = relative(REPO_ROOT, resolve(file, '..', specifier));
        if (target.startsWith(`web${'/'}`)) continue;
        if (!(typeOnly && SHARED_TYPES.has(target)))
          offending.push(`${relative(REPO_ROOT, file)}: ${typeOnly ? 'type' : 'value'} ${target}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
