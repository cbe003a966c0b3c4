/**
 * A one-line progress bar on stderr for long work, drawn only on a terminal: on a pipe (scripts,
 * CI, `--json`) it prints nothing, so machine-readable output stays clean.
 */
import type { CliIo } from './cli-io.js';

/** Reports progress of `total` units of work. */
export interface ProgressReporter {
  update(done: number): void;
  finish(): void;
}

const WIDTH = 30;

/** How a bar ends: `keep` leaves its full last frame on its own line; `erase` clears the line (work whose result
 * is printed next, where a finished bar would only be noise). */
export type ProgressEnd = 'keep' | 'erase';

/** A progress bar for `label`, or a silent reporter when stderr is not a TTY. */
export function progressBar(io: CliIo, label: string, total: number, end: ProgressEnd = 'keep'): ProgressReporter {
  if (io.stderr.isTTY !== true || total <= 0) return { update: () => undefined, finish: () => undefined };
  let last = -1;
  const draw = (done: number): void => {
    const filled = Math.round((Math.min(done, total) / total) * WIDTH);
    if (filled === last && done < total) return;
    last = filled;
    io.stderr.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${done}/${total}`);
  };
  draw(0);
  return {
    update: draw,
    finish: () => {
      if (end === 'erase') {
        // Carriage return, then ECMA-48 EL 2 (erase the whole line).
        io.stderr.write('\r\x1b[2K');
        return;
      }
      draw(total);
      io.stderr.write('\n');
    },
  };
}

/** Units of work below which no bar is drawn (a warm index checks thousands in a blink). */
export const PROGRESS_AFTER = 200;

/**
 * A listener for `(done, total)` reports of work that may be long: it draws a bar (see {@link progressBar}) once a
 * report shows unfinished work of at least {@link PROGRESS_AFTER} units, and ends the bar (as `end` says) when the work
 * is done.
 */
export function progressListener(io: CliIo, label: string, end: ProgressEnd = 'keep'): (done: number, total: number) => void {
  let progress: ProgressReporter | undefined;
  return (done, total) => {
    if (progress === undefined && done < total && total >= PROGRESS_AFTER) progress = progressBar(io, label, total, end);
    progress?.update(done);
    if (done === total && progress !== undefined) {
      progress.finish();
      progress = undefined;
    }
  };
}
