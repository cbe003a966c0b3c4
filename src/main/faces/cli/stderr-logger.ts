/**
 * The plugin logger of CLI runs: warnings and errors of mounted plugins (an unknown DCP configuration key, a
 * configuration that keeps DCP unmounted, a degraded stats fold) reach the person on standard error instead of
 * vanishing. Debug and info lines stay quiet, so scripted output on standard out is unchanged.
 */
import type { PluginLogger } from '../../host-api/host-api.js';
import type { CliIo } from './cli-io.js';

/** A logger writing `sessionctx: warning: <text>` and `sessionctx: error: <text>` lines to `io.stderr`. */
export function stderrLogger(io: CliIo): PluginLogger {
  return {
    debug(): void {},
    info(): void {},
    warn(text: string): void {
      io.stderr.write(`sessionctx: warning: ${text}\n`);
    },
    error(text: string): void {
      io.stderr.write(`sessionctx: error: ${text}\n`);
    },
  };
}
