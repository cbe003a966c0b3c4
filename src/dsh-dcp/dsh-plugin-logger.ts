/**
 * The host API's plugin logger over a cordis logger (`ctx.logger(name)`). Texts are passed as a `%s` argument, so a
 * `%` in a message is never read as a format directive; a detail follows as cordis's next argument.
 */
import type { PluginLogger } from '../main/host-api/host-api.js';
import type { DshLogger } from './dsh-dcp-host-shapes.js';

/** The levels both loggers share. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** `logger` as a {@link PluginLogger}. */
export function pluginLogger(logger: DshLogger): PluginLogger {
  const at =
    (level: LogLevel) =>
    (text: string, detail?: unknown): void => {
      if (detail === undefined) logger[level]('%s', text);
      else logger[level]('%s', text, detail);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
