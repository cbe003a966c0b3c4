/**
 * Glob matching for `protectedFilePatterns` (DCP.md §7.8): backslashes become `/`, `**\/` matches any directory
 * prefix (including none), `**` anything, `*` anything within one segment, `?` one non-`/` character; every other
 * character is literal. Patterns are anchored at both ends, and an empty pattern matches nothing.
 */

const REGEX_SYNTAX_RE = /[\\^$.*+?()[\]{}|/-]/g;

function toSlashes(value: string): string {
  return value.replaceAll('\\', '/');
}

/** The anchored regular expression of a glob, or `undefined` for the empty pattern (which matches nothing). */
export function compileGlob(pattern: string): RegExp | undefined {
  if (pattern === '') return undefined;
  const glob = toSlashes(pattern);
  let source = '';
  for (let index = 0; index < glob.length; ) {
    if (glob.startsWith('**/', index)) {
      source += '(?:.*/)?';
      index += 3;
    } else if (glob.startsWith('**', index)) {
      source += '.*';
      index += 2;
    } else if (glob[index] === '*') {
      source += '[^/]*';
      index += 1;
    } else if (glob[index] === '?') {
      source += '[^/]';
      index += 1;
    } else {
      source += glob[index]!.replace(REGEX_SYNTAX_RE, '\\$&');
      index += 1;
    }
  }
  // dotAll so that `.*` really spans every character, as "anything" promises.
  return new RegExp(`^${source}$`, 's');
}

/** True when `path` (backslashes read as `/`) matches `pattern`. */
export function matchesGlob(pattern: string, path: string): boolean {
  return compileGlob(pattern)?.test(toSlashes(path)) ?? false;
}

/**
 * A matcher for a fixed list of patterns, compiled once: true when any pattern matches the path. Callers build
 * it once per configuration, not per path.
 */
export function globMatcher(patterns: readonly string[]): (path: string) => boolean {
  const compiled = patterns.map(compileGlob).filter((regex): regex is RegExp => regex !== undefined);
  if (compiled.length === 0) return () => false;
  return (path) => {
    const normalized = toSlashes(path);
    return compiled.some((regex) => regex.test(normalized));
  };
}
