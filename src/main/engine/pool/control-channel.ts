/**
 * Message-passing abort on the main side (SESSION-LOG.md §10.6 rule 3, ARCHITECTURE.md §3): every task
 * gets a `MessageChannel`; the worker end travels with the task, this end stays here. When the caller's
 * signal aborts, `{type:'abort'}` is posted and the caller's promise rejects at once with the signal's
 * reason (abort-controller-x `execute`); the task's own settlement is absorbed whenever it comes, and only
 * then is the channel closed. A task that has not settled (acknowledged the abort) within the optional
 * grace period is handed to `grace.expired`, which the pool uses to terminate and replace its thread.
 * The grace period counts from the later of the abort and the worker's `{type:'started'}` on the port:
 * a task still queued behind others when aborted polls at its start and settles at once, so its queue
 * time must not count.
 */
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { execute } from '../signal/abort.js';
import { ABORT_MESSAGE, isTaskStartedMessage } from '../../../protocol/wire/task-shapes.js';

/** What to do about an aborted task that does not acknowledge the abort. */
export interface AbortGrace {
  /** How long after the abort message the task may take to settle. */
  readonly graceMs: number;
  /** Called once when the task ran `graceMs` past the abort (and its start) and has still not settled. */
  readonly expired: () => void;
}

/**
 * Starts a task with a fresh control port and races it against `signal`. `start` receives the port to
 * send along (and must put it in the transfer list); `finish` turns the raw reply into the result and
 * runs only for a caller that is still waiting. With `grace`, an abort the running task leaves
 * unanswered for `grace.graceMs` calls `grace.expired` (the caller has long been settled by then).
 */
export function runWithControlPort<T>(
  start: (control: MessagePort) => Promise<unknown>,
  finish: (reply: unknown) => T,
  signal: AbortSignal | undefined,
  grace?: AbortGrace,
): Promise<T> {
  if (signal?.aborted === true) return Promise.reject(signal.reason);
  const { port1: local, port2: remote } = new MessageChannel();
  let settled = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const release = (): void => {
    settled = true;
    if (graceTimer !== undefined) clearTimeout(graceTimer);
    local.close();
    // A no-op once the port was transferred; closes it when the task never left this thread.
    remote.close();
  };
  let work: Promise<unknown>;
  try {
    work = start(remote);
  } catch (error) {
    release();
    return Promise.reject(error);
  }
  work.then(release, release);
  const result = work.then(finish);
  if (signal === undefined) return result;
  const armGrace = (expired: () => void, graceMs: number): void => {
    if (settled || graceTimer !== undefined) return;
    graceTimer = setTimeout(() => {
      // Deferred past the poll phase: after a main-thread stall longer than the grace period, timers run
      // before pending messages, and the task's reply may already be waiting there.
      setImmediate(() => {
        if (!settled) expired();
      });
    }, graceMs);
    // The timer alone must not keep a process alive; a running task keeps the pool's port referenced anyway.
    graceTimer.unref();
  };
  return execute<T>(signal, (resolve, reject) => {
    result.then(resolve, reject);
    return () => {
      local.postMessage(ABORT_MESSAGE);
      if (grace === undefined || settled) return;
      let started = false;
      // The worker's started message waits in this port's queue unless it is still to come.
      for (let received = receiveMessageOnPort(local); received !== undefined; received = receiveMessageOnPort(local)) {
        if (isTaskStartedMessage(received.message)) started = true;
      }
      if (started) {
        armGrace(grace.expired, grace.graceMs);
        return;
      }
      local.on('message', (message: unknown) => {
        if (isTaskStartedMessage(message)) armGrace(grace.expired, grace.graceMs);
      });
    };
  });
}
