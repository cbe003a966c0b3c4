/**
 * `yieldToEventLoop` (io/yield-to-event-loop.ts): a hop really lets the host's due timers and I/O run, from whichever
 * phase of the loop it starts — in particular from an I/O callback, where a single `setImmediate` resolves in the
 * check phase of the same iteration, before any timer (issue 27 item 6).
 */
import { readFile } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { yieldToEventLoop } from '../../src/io/yield-to-event-loop.js';

/** Busy-waits `ms` (so a timer set before is due). */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // Holding the thread is the point.
  }
}

/** Starts `hop` inside an I/O callback once a 0 ms timer is due; resolves with whether the timer ran before the hop ended. */
function timerRanBeforeHopFromIo(hop: () => Promise<void>): Promise<boolean> {
  return new Promise((resolve, reject) => {
    readFile(fileURLToPath(import.meta.url), (error) => {
      if (error !== null) {
        reject(error);
        return;
      }
      let timerRan = false;
      setTimeout(() => {
        timerRan = true;
      }, 0);
      spin(5);
      hop().then(() => resolve(timerRan), reject);
    });
  });
}

describe('yieldToEventLoop', () => {
  it('started in an I/O callback, resolves only after a due timer ran', async () => {
    for (let round = 0; round < 5; round++) expect(await timerRanBeforeHopFromIo(yieldToEventLoop)).toBe(true);
  });

  it('a single setImmediate would not (what the hop must not be)', async () => {
    const single = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    expect(await timerRanBeforeHopFromIo(single)).toBe(false);
  });

  it('started from a timer or the check phase, resolves after the next iteration’s due timers too', async () => {
    for (const start of [(run: () => void) => setTimeout(run, 0), (run: () => void) => setImmediate(run)]) {
      const ran = await new Promise<boolean>((resolve, reject) => {
        start(() => {
          let timerRan = false;
          setTimeout(() => {
            timerRan = true;
          }, 0);
          spin(5);
          yieldToEventLoop().then(() => resolve(timerRan), reject);
        });
      });
      expect(ran).toBe(true);
    }
  });
});
