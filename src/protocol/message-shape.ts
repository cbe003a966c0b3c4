/**
 * Shape checks for the payloads that reach a model: the message-shape rules of SESSION-LOG.md §4.4 and the
 * `request/header` load checks of §3.6. Texts are dsh's, byte for byte.
 */
import { SessionLogError } from './errors.js';
import type { SurfaceEventType } from './events.js';
import { isObjectLike } from './record-guard.js';
import { assertNever } from './assert-never.js';

/** A value that may be read like an object: anything but `null` that `typeof` calls an object. */
type Readable = Readonly<Record<string, unknown>>;

/** True for a string with at least one code unit. */
function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** True when `value` is an object carrying non-empty string `provider` and `model`. */
function hasProviderModel(value: unknown): boolean {
  return isObjectLike(value) && isNonEmptyString(value['provider']) && isNonEmptyString(value['model']);
}

function invalidMessage(message: string): SessionLogError {
  return new SessionLogError('SESSION_LOG_INVALID_MESSAGE', message);
}

/**
 * Checks the message carried by a surface event (SESSION-LOG.md §4.4): for `user/message` the message is
 * `data`, for `assistant/message` and `tool/result` it is `data.message`. `subject` is inserted raw, e.g.
 * `seed tool/result at index 3` or `session event at seq 7`. Throws `SessionLogError`
 * (`SESSION_LOG_INVALID_MESSAGE`) with the first failing rule's text.
 */
export function checkMessageShape(type: SurfaceEventType, data: unknown, subject: string): void {
  const message = type === 'user/message' ? data : isObjectLike(data) ? data['message'] : undefined;
  if (!isObjectLike(message) || !isNonEmptyString(message['id'])) {
    throw invalidMessage(`${subject} lacks an identified message`);
  }
  const expectedRole = type === 'assistant/message' ? 'assistant' : 'user';
  if (message['role'] !== expectedRole) {
    throw invalidMessage(`${subject} message must have role "${expectedRole}"`);
  }
  const source = message['source'];
  if (!isObjectLike(source) || !isNonEmptyString(source['kind'])) {
    throw invalidMessage(`${subject} message has invalid source`);
  }
  const content = message['content'];
  if (!Array.isArray(content)) {
    throw invalidMessage(`${subject} message has invalid content`);
  }
  switch (type) {
    case 'user/message':
      return;
    case 'assistant/message':
      if (source['kind'] !== 'model' || !hasProviderModel(source)) {
        throw invalidMessage(`${subject} message must have model source`);
      }
      return;
    case 'tool/result': {
      if (source['kind'] !== 'tool' || !isNonEmptyString(source['callId'])) {
        throw invalidMessage(`${subject} message must have tool source`);
      }
      const block: unknown = content[0];
      if (content.length !== 1 || !isObjectLike(block) || block['type'] !== 'tool-result' || !Array.isArray(block['content'])) {
        throw invalidMessage(`${subject} message must contain one tool-result block`);
      }
      if (block['toolCallId'] !== source['callId']) {
        throw invalidMessage(`${subject} message has mismatched tool call ids`);
      }
      return;
    }
    default:
      assertNever(type, 'unreachable surface event type:');
  }
}

/** The only keys `adapterDefaults` may carry. */
const ADAPTER_DEFAULT_KEYS: ReadonlySet<string> = new Set(['reasoningEffort', 'maxTokens']);

/**
 * Checks the `data` of a `request/header` event at seed/restore index `index` (SESSION-LOG.md §3.6): the
 * config names a provider and model, `reasoningEffort` (when present) is a non-empty string, and
 * `adapterDefaults` (when present) only marks `reasoningEffort` / `maxTokens` as `true` for keys the config
 * actually sets. Throws `SessionLogError` (`SESSION_LOG_INVALID_MESSAGE`).
 */
export function checkRequestHeader(data: unknown, index: number): void {
  const header = isObjectLike(data) ? data['header'] : undefined;
  const headerRecord = isObjectLike(header) && !Array.isArray(header) ? header : undefined;
  const config = headerRecord?.['config'];
  if (!hasProviderModel(config)) {
    throw invalidMessage(`seed request/header at index ${index} lacks provider/model`);
  }
  const configRecord = config as Readable;
  const reasoningEffort = configRecord['reasoningEffort'];
  if (reasoningEffort !== undefined && !isNonEmptyString(reasoningEffort)) {
    throw invalidMessage(`seed request/header at index ${index} has an invalid reasoningEffort`);
  }
  const adapterDefaults = headerRecord?.['adapterDefaults'];
  if (adapterDefaults === undefined) return;
  if (
    !isObjectLike(adapterDefaults) ||
    Array.isArray(adapterDefaults) ||
    Object.keys(adapterDefaults).some((key) => !ADAPTER_DEFAULT_KEYS.has(key)) ||
    Object.values(adapterDefaults).some((marker) => marker !== true) ||
    (adapterDefaults['reasoningEffort'] === true && configRecord['reasoningEffort'] === undefined) ||
    (adapterDefaults['maxTokens'] === true && configRecord['maxTokens'] === undefined)
  ) {
    throw invalidMessage(`seed request/header at index ${index} has invalid adapterDefaults`);
  }
}
