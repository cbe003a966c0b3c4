/**
 * The parser of a `--port` flag (`serve`, `mcp --http`): a whole number from 0 (any free port) to 65535, else
 * commander's usage error naming the flag.
 */
import { InvalidArgumentError } from './commander.js';

/**
 * A port: a whole number from 0 (any free port) to 65535.
 * @param value - the flag's text.
 * @returns the port.
 */
export function parsePortOption(value: string): number {
  const port = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isSafeInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('it must be a whole number from 0 to 65535.');
  return port;
}
