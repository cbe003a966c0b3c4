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

/** A progress bar for `label`, or a silent reporter when stderr is not a TTY. */
export function progressBar(io: CliIo, label: string, total: number): ProgressReporter {
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
      draw(total);
      io.stderr.write('\n');
    },
  };
}
