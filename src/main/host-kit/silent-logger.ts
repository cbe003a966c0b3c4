/** The logger of a plugin nobody listens to: the stand-in host's default, and the catalog's ledger reads. */
import type { PluginLogger } from '../host-api/host-api.js';

/** A logger that drops everything. */
export const silentLogger: PluginLogger = Object.freeze({
  debug(): void {},
  info(): void {},
  warn(): void {},
  error(): void {},
});
