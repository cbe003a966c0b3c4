/**
 * The CLI's warnings about what a listing skipped, aggregated over one command run. A damaged log or two is
 * reported line by line; a problem of the whole root (a root one level too deep, where every session's log
 * looks like a flat file in a project directory) would be one line per session — so only the first
 * {@link SHOWN_WARNINGS} are printed as they come, each path once however often the command lists, and at the end
 * one summary line counts every skipped entry by code, with a hint about the layout when the problems say what is
 * wrong with it. `--json` output keeps the full list (`problems`), which this never touches.
 */
import { dirname } from 'node:path';
import { escapeTerminalText } from '../../../protocol/uri/display-escape.js';
import type { ListingProblem, ListingProblemCode } from '../../../protocol/listing-problem.js';
import type { CliIo } from './cli-io.js';
import { diagnosticPrefix } from './terminal-style.js';

/** How many skipped entries are reported one line each before the rest are only counted. */
export const SHOWN_WARNINGS = 5;

/**
 * The hint about the root's layout that a set of problems supports, if any: when most skipped entries (and at
 * least two) are flat files directly in what the walk took for project directories, the root is most likely a
 * project directory, one level below the session root.
 * @param root - the resolved session root.
 * @param counts - the skipped entries by code.
 * @returns the hint text, or `undefined`.
 */
export function layoutHint(root: string, counts: ReadonlyMap<ListingProblemCode, number>): string | undefined {
  const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
  const flat = counts.get('SESSION_STORE_FLAT_LAYOUT') ?? 0;
  if (flat < 2 || flat * 2 < total) return undefined;
  return (
    `hint: ${root} looks one level too deep: its sub-directories hold session logs directly, as a project directory ` +
    `of a session root does (<root>/<project>/<session>/session.jsonl); try --root ${dirname(root)}`
  );
}

/** Collects one command run's listing problems and prints them aggregated. */
export class ListingWarnings {
  readonly #io: CliIo;
  readonly #root: string;
  readonly #seen = new Set<string>();
  readonly #counts = new Map<ListingProblemCode, number>();

  /**
   * @param io - where the warnings go (stderr).
   * @param root - the session root the command lists, named by the hint.
   */
  constructor(io: CliIo, root: string) {
    this.#io = io;
    this.#root = root;
  }

  /**
   * Takes one skipped entry: printed while fewer than {@link SHOWN_WARNINGS} were, counted always; a path already
   * reported by an earlier listing of the same run is ignored.
   * @param problem - what the listing skipped.
   */
  add(problem: ListingProblem): void {
    const key = `${problem.code}\u0000${problem.path}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.#counts.set(problem.code, (this.#counts.get(problem.code) ?? 0) + 1);
    if (this.#seen.size > SHOWN_WARNINGS) return;
    this.#write(`skipped ${problem.path}: ${problem.message} (${problem.code})`);
  }

  /** Prints the summary (when entries went unprinted) and the layout hint (when the problems support one). */
  finish(): void {
    const total = this.#seen.size;
    if (total > SHOWN_WARNINGS) {
      const byCode = [...this.#counts.entries()]
        .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
        .map(([code, count]) => `${code} ${count}`)
        .join(', ');
      this.#write(
        `skipped ${total} entries of ${this.#root} in all (${byCode}); ${total - SHOWN_WARNINGS} not shown above, --json lists every one`,
      );
    }
    const hint = layoutHint(this.#root, this.#counts);
    if (hint !== undefined) this.#write(hint);
  }

  #write(text: string): void {
    this.#io.stderr.write(`${diagnosticPrefix(this.#io, 'warning')}${escapeTerminalText(text)}\n`);
  }
}
