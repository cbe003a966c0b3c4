/**
 * A FIFO that nobody writes to, for tasks that must block in a `read(2)` that never returns. It counts the
 * readers the test sent into it, so cleanup can let each of them return: a thread stuck in a system call cannot
 * be terminated, and a process could not exit with one left.
 */
import { execFileSync } from 'node:child_process';
import { open } from 'node:fs/promises';
import { join } from 'node:path';

/** One never-written FIFO in a test's temporary directory. */
export class BlockingFifo {
  /** The FIFO's path. */
  readonly path: string;
  #blockedReaders = 0;

  /** @param dir - an existing temporary directory the FIFO is made in. */
  constructor(dir: string) {
    this.path = join(dir, 'never-written.fifo');
    execFileSync('mkfifo', [this.path]);
  }

  /** Records one more reader that will block in the FIFO. */
  noteReader(): void {
    this.#blockedReaders += 1;
  }

  /** Lets every blocked reader return: a read-write open never blocks on Linux and counts as a writer. */
  async release(): Promise<void> {
    if (this.#blockedReaders === 0) return;
    const handle = await open(this.path, 'r+');
    await handle.write(Buffer.alloc(this.#blockedReaders, 0x21));
    await handle.close();
    this.#blockedReaders = 0;
  }
}
