/**
 * A scenario file that cannot be run as written; the message names the offending path.
 */
export class ScenarioError extends Error {
  /** Always `SCENARIO_INVALID`. */
  readonly code = 'SCENARIO_INVALID' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ScenarioError';
  }
}
