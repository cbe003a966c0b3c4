/**
 * What every command receives once its command line is parsed: the process view, the output mode, the
 * configuration resolved once (flag > environment > file > default), whether stages may use worker threads,
 * and the cancellation signal.
 */
import type { ResolvedCompositionConfig } from '../../engine/config/composition-config.js';
import type { CliIo } from './cli-io.js';

/** The parsed, resolved context of one command run. */
export interface CommandContext {
  readonly io: CliIo;
  /** `--json`: machine-readable output, raw values. */
  readonly json: boolean;
  readonly resolved: ResolvedCompositionConfig;
  /** `false` with `--no-workers`: every stage runs on the main thread. */
  readonly workers: boolean;
  readonly signal: AbortSignal | undefined;
}
