/**
 * The package's version, for `--version` and for servers that announce themselves (MCP).
 */
import { readFileSync } from 'node:fs';

/** The package version, read from the package's own `package.json` (three folders above `dist/src/main/faces/cli`). */
export function packageVersion(): string {
  const text = readFileSync(new URL('../../../../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}
