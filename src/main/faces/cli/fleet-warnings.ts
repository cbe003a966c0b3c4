/**
 * The CLI's lines for the background publisher of a shared corpus index (issue 29): a failure is a warning on stderr
 * once per code in a row (a server that stays down is one line, not one per retry), and the publish that follows a
 * failure says the index is current again. Successful publishes and their progress are silent: a command's output is
 * its answer. The publisher's messages name no credential (`FleetError`).
 */
import { escapeTerminalText } from '../../../protocol/uri/display-escape.js';
import type { FleetPublishEvent } from '../../engine/fleet/background-publisher.js';
import type { CliIo } from './cli-io.js';
import { diagnosticPrefix } from './terminal-style.js';

/** A listener for `onFleetEvent` that writes the CLI's warnings to `io`'s stderr. */
export function fleetWarnings(io: CliIo): (event: FleetPublishEvent) => void {
  let failing: string | undefined;
  return (event) => {
    if (event.kind === 'failed') {
      const code = event.code ?? 'error';
      if (failing === code) return;
      failing = code;
      const seconds = Math.max(1, Math.round(event.retryInMs / 1000));
      io.stderr.write(
        `${diagnosticPrefix(io, 'warning')}${escapeTerminalText(`corpus index: publishing failed (${code}: ${event.message}); retrying in ${seconds} s, local work goes on`)}\n`,
      );
    } else if (event.kind === 'published' && failing !== undefined) {
      failing = undefined;
      io.stderr.write(`${diagnosticPrefix(io, 'warning')}corpus index: published again (${event.summary.published} sessions written)\n`);
    }
  };
}
