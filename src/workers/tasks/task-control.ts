/**
 * The worker side of message-passing abort (SESSION-LOG.md §10.6 rule 3). Synchronous stages call
 * {@link TaskControl.poll} between chunks of work; it drains the control port with
 * `receiveMessageOnPort` and throws once `{type:'abort'}` arrived. Awaited steps (file reads) use
 * {@link TaskControl.signal}, which the port's message listener aborts, because no poll runs while the
 * thread waits for I/O.
 */
import { receiveMessageOnPort } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { taskAbortedError } from '../../protocol/wire/pool-errors.js';
import { isAbortControlMessage } from '../../protocol/wire/task-shapes.js';

/** A task's view of its control port. */
export class TaskControl {
  readonly #port: MessagePort | undefined;
  readonly #controller = new AbortController();
  readonly #onMessage = (message: unknown): void => {
    if (isAbortControlMessage(message)) this.#controller.abort(taskAbortedError());
  };

  /** Listens on `port` (none: the task cannot be aborted, e.g. a direct in-thread call). */
  constructor(port: MessagePort | undefined) {
    this.#port = port;
    port?.on('message', this.#onMessage);
  }

  /** Aborts when the caller posted `{type:'abort'}`; hand it to awaited I/O. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Throws the task's abort error if an abort message has arrived (checks the port synchronously). */
  poll(): void {
    const port = this.#port;
    if (port !== undefined && !this.#controller.signal.aborted) {
      for (let received = receiveMessageOnPort(port); received !== undefined; received = receiveMessageOnPort(port)) {
        this.#onMessage(received.message);
      }
    }
    if (this.#controller.signal.aborted) throw this.#controller.signal.reason;
  }

  /** A bound {@link poll} to hand to stage functions. */
  readonly pollFn = (): void => this.poll();

  /** Stops listening and closes the port (the task is over). */
  dispose(): void {
    const port = this.#port;
    if (port === undefined) return;
    port.off('message', this.#onMessage);
    port.close();
  }
}
