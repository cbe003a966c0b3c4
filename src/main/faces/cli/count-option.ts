/**
 * The parser of a numeric flag (`--limit`, `--max-bytes`, `--max-references`): the configuration's own
 * positive-safe-integer rule, reported as commander's usage error naming the flag.
 */
import { InvalidArgumentError } from './commander.js';
import { positiveSafeInteger } from '../../../protocol/config-schema.js';

const RULE = positiveSafeInteger();

/**
 * A positive whole number. Anything else — `abc`, `0`, `-1`, `1.5`, an empty text — is a usage error that names
 * the flag (commander adds the flag's name to the message).
 * @param value - the flag's text.
 * @returns the number.
 */
export function parseCountOption(value: string): number {
  const parsed = RULE.safeParse(value.trim() === '' ? Number.NaN : Number(value));
  if (!parsed.success) throw new InvalidArgumentError('it must be a positive whole number.');
  return parsed.data;
}
