/**
 * The error thrown by DCP configuration validation (DCP.md §16): `dcp config: <key> <reason>`. The plugin is then
 * not mounted and the agent runs without DCP.
 */

/** An invalid `dcp` configuration value. */
export class DcpConfigError extends Error {
  /** Always `DCP_CONFIG_INVALID`. */
  readonly code = 'DCP_CONFIG_INVALID' as const;
  /** The dotted key that failed (`dcp` for the namespace itself). */
  readonly key: string;

  constructor(key: string, reason: string) {
    super(`dcp config: ${key} ${reason}`);
    this.key = key;
    Object.defineProperty(this, 'name', { value: 'DcpConfigError', enumerable: false, configurable: true, writable: true });
  }
}
