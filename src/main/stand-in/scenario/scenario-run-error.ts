/**
 * A scenario that ran but did not go as scripted (`sessionctx script run` exits 1 with it): a turn ended with an
 * error or a command step failed. The session was written to the store regardless — its log is the record of what
 * happened — so the error says where, and lists every failure.
 */
import type { ScenarioFailure } from './run-scenario.js';

/** The failure of a run whose {@link ScenarioFailure}s are not empty. */
export class ScenarioRunError extends Error {
  /** Always `SCENARIO_RUN_FAILED`. */
  readonly code = 'SCENARIO_RUN_FAILED' as const;
  /** The session the run wrote. */
  readonly sessionId: string;
  /** Where its log was written; the log is kept. */
  readonly path: string;
  /** What went wrong, in log order; never empty. */
  readonly errors: readonly ScenarioFailure[];
  /** The rest of the run's report (surface, tool results, commands) that `details` carries. */
  readonly #report: Readonly<Record<string, unknown>>;

  /** `report` is added to {@link details} as is (the CLI passes what its success output would print). */
  constructor(
    run: { readonly sessionId: string; readonly path: string; readonly errors: readonly ScenarioFailure[] },
    report: Readonly<Record<string, unknown>> = {},
  ) {
    const count = run.errors.length;
    super(
      `scenario session ${JSON.stringify(run.sessionId)} ran with ${count} error${count === 1 ? '' : 's'}; it was written to ${run.path} all the same, as the record of what happened`,
    );
    this.name = 'ScenarioRunError';
    this.sessionId = run.sessionId;
    this.path = run.path;
    this.errors = run.errors;
    this.#report = report;
  }

  /** Machine-readable details (the CLI's `--json` error output): session, path, `errors`, then the report. */
  get details(): Readonly<Record<string, unknown>> {
    return { sessionId: this.sessionId, path: this.path, errors: this.errors, ...this.#report };
  }

  /** One line per failure, for a person (the CLI prints them on standard error). */
  get hints(): readonly string[] {
    return this.errors.map((failure) => {
      switch (failure.kind) {
        case 'turn':
        case 'host':
          return `turn ${failure.turn} failed: ${failure.code}: ${failure.message}`;
        case 'command':
          return `steps[${failure.step}] (${failure.input}) failed: ${failure.message}`;
        default: {
          const unreachable: never = failure;
          throw new TypeError(`unexpected scenario failure ${JSON.stringify(unreachable)}`);
        }
      }
    });
  }
}
