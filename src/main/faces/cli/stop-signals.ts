/**
 * The stop of a long-running command (`serve`, `mcp --http`): SIGINT, SIGTERM or the command's own abort signal.
 * Listening starts when this is called — before the command prints the address a caller waits for — so a caller that
 * reads the line and stops the server at once gets the clean shutdown, not Node's default death by signal.
 */

/** Resolves at the first SIGINT, SIGTERM or abort of `signal`; the process listeners are removed then. */
export function untilStopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop, { once: true });
  });
}
