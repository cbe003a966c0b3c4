/**
 * Validation of what a worker sends back (a real trust boundary: a bug or a mismatched worker build must
 * fail one task with a typed error, never hand malformed data to the reference service). Checks are
 * structural and O(1) per field; large payloads (JSON text, event buffers) are checked by type only.
 */
import type { SessionHeader } from '../events.js';
import { SessionPoolError } from './pool-errors.js';
import type {
  DcpLedgerValue,
  InspectValue,
  ObserveTitlesValue,
  ReadSourceValue,
  SearchDocumentsValue,
  SourceRender,
  TaskKind,
  TaskOutcome,
  TaskValues,
  TitleFileOutcome,
} from './task-shapes.js';
import { isWireError } from './wire-error.js';
import { isRecord } from '../record-guard.js';
import { assertNever } from '../assert-never.js';
import { SEARCH_ROLES } from '../search-types.js';

type Check = (value: unknown) => boolean;

/** A header as a worker returns it: a plain record with a string id (it was validated in the worker). */
function isHeader(value: unknown): value is SessionHeader {
  return isRecord(value) && typeof value['id'] === 'string' && typeof value['createdAt'] === 'number';
}

const STAT_BOOLEANS = ['compacted', 'truncated'] as const;
const STAT_COUNTS = ['originalMessages', 'retainedMessages', 'omittedMessages', 'omittedBytes'] as const;

function isRender(value: unknown): value is SourceRender {
  if (!isRecord(value)) return false;
  if (value['fits'] === false) {
    const minimum = value['minimumBudgetBytes'];
    return typeof minimum === 'number' && Number.isSafeInteger(minimum) && minimum > 0;
  }
  if (value['fits'] !== true) return false;
  const stats = value['stats'];
  const seq = value['capturedThroughSeq'];
  return (
    typeof value['sessionId'] === 'string' &&
    typeof value['json'] === 'string' &&
    (seq === null || (typeof seq === 'number' && Number.isSafeInteger(seq))) &&
    isRecord(stats) &&
    STAT_BOOLEANS.every((key) => typeof stats[key] === 'boolean') &&
    STAT_COUNTS.every((key) => typeof stats[key] === 'number' && Number.isSafeInteger(stats[key]) && (stats[key] as number) >= 0)
  );
}

function isDigest(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isScannedStep(value: unknown): boolean {
  if (!isRecord(value) || !Number.isSafeInteger(value['seq'])) return false;
  const replace = value['replace'];
  const item = value['item'];
  return (
    (replace === null || (isRecord(replace) && Number.isSafeInteger(replace['start']) && Number.isSafeInteger(replace['end']))) &&
    (item === null ||
      (isRecord(item) &&
        (item['role'] === 'user' || item['role'] === 'assistant') &&
        typeof item['originalText'] === 'string' &&
        typeof item['checkpoint'] === 'boolean'))
  );
}

function isScannedSource(value: unknown): boolean {
  if (!isRecord(value) || !isRecord(value['revision']) || !isRecord(value['resume'])) return false;
  const revision = value['revision'];
  const resume = value['resume'];
  return (
    (value['served'] === 'cold' || value['served'] === 'appended') &&
    ['dev', 'ino', 'size', 'ctimeNs'].every((key) => typeof revision[key] === 'string') &&
    isDigest(value['tailDigest']) &&
    isDigest(resume['headerDigest']) &&
    isDigest(resume['guard']) &&
    isRecord(resume['checkpoint']) &&
    isCount(value['committedEvents']) &&
    isCount(value['balancedEvents']) &&
    isCount(value['fromSeq']) &&
    Array.isArray(value['steps']) &&
    value['steps'].every(isScannedStep)
  );
}

const isReadSourceValue: Check = (value): value is ReadSourceValue => {
  if (isRecord(value) && value['status'] === 'unscannable') return true;
  if (!isRecord(value) || !isHeader(value['header'])) return false;
  switch (value['status']) {
    case 'scanned':
      return isScannedSource(value['scan']);
    case 'entry':
      return (
        (value['served'] === 'cold' || value['served'] === 'appended') &&
        isRecord(value['record']) &&
        Array.isArray(value['items']) &&
        isCount(value['estimatedBytes']) &&
        value['bytes'] instanceof Uint8Array &&
        (value['render'] === null || isRender(value['render']))
      );
    case 'rendered':
      return isRender(value['render']);
    case 'surface-failed':
      return isWireError(value['error']);
    default:
      return false;
  }
};

const isInspectValue: Check = (value): value is InspectValue =>
  isRecord(value) && isHeader(value['header']) && Array.isArray(value['events']) && value['events'].length === value['eventCount'];

function isTitleOutcome(value: unknown): value is TitleFileOutcome {
  if (!isRecord(value)) return false;
  switch (value['status']) {
    case 'fulfilled':
      return isHeader(value['header']) && (value['title'] === undefined || isRecord(value['title']));
    case 'rejected':
      return (value['phase'] === 'inspect' || (value['phase'] === 'fold' && isHeader(value['header']))) && isWireError(value['error']);
    default:
      return false;
  }
}

const isObserveTitlesValue: Check = (value): value is ObserveTitlesValue =>
  isRecord(value) && Array.isArray(value['outcomes']) && value['outcomes'].every(isTitleOutcome);

/** The ledger fields a `dcpLedger` value must carry as finite numbers (DCP.md §15.1). */
const LEDGER_FIELDS = [
  'shadowedTokens',
  'checkpointTokens',
  'blockCount',
  'expansionTokens',
  'pruneTokens',
  'pruneReplacements',
  'cleanupTokens',
  'inlineCleanups',
  'markerTokens',
] as const;

const isDcpLedgerValue: Check = (value): value is DcpLedgerValue => {
  if (!isRecord(value) || !isRecord(value['ledger']) || !Array.isArray(value['reReadTokens']) || !Number.isSafeInteger(value['eventCount']))
    return false;
  const ledger = value['ledger'];
  return LEDGER_FIELDS.every((field) => Number.isFinite(ledger[field])) && value['reReadTokens'].every((tokens) => Number.isFinite(tokens));
};

const isSeqs = (value: unknown): boolean => Array.isArray(value) && value.every((seq) => Number.isSafeInteger(seq));

const isSearchDocumentsValue: Check = (value): value is SearchDocumentsValue => {
  if (isRecord(value) && value['status'] === 'none') return true;
  if (!isRecord(value) || (value['status'] !== 'rebuilt' && value['status'] !== 'appended')) return false;
  const state = value['state'];
  const steps = value['steps'];
  return (
    isRecord(state) &&
    isRecord(state['resume']) &&
    isSeqs(state['committed']) &&
    isSeqs(state['answer']) &&
    isSeqs(value['removed']) &&
    Array.isArray(steps) &&
    steps.every(
      (step) =>
        isRecord(step) &&
        Number.isSafeInteger(step['seq']) &&
        Number.isFinite(step['time']) &&
        Array.isArray(step['documents']) &&
        step['documents'].every(
          (document) =>
            isRecord(document) && typeof document['text'] === 'string' && (SEARCH_ROLES as readonly unknown[]).includes(document['role']),
        ),
    )
  );
};

const VALUE_CHECKS: { readonly [K in TaskKind]: Check } = {
  readSource: isReadSourceValue,
  inspect: isInspectValue,
  observeTitles: isObserveTitlesValue,
  dcpLedger: isDcpLedgerValue,
  searchDocuments: isSearchDocumentsValue,
};

/** The per-item list of a value whose length must match the request, for the kinds that answer per item. */
function itemsOf(kind: TaskKind, value: unknown): readonly unknown[] | undefined {
  switch (kind) {
    case 'observeTitles':
      return (value as ObserveTitlesValue).outcomes;
    case 'dcpLedger':
      return (value as DcpLedgerValue).reReadTokens;
    case 'readSource':
    case 'inspect':
    case 'searchDocuments':
      return undefined;
    default:
      assertNever(kind, 'unknown task kind');
  }
}

/**
 * Checks a worker's reply to a `kind` task and returns it typed.
 *
 * @throws SessionPoolError `SESSION_POOL_PROTOCOL` when the reply is not a well-formed outcome of that kind.
 */
export function validateTaskOutcome<K extends TaskKind>(kind: K, reply: unknown, expectedItems?: number): TaskOutcome<TaskValues[K]> {
  return validateOutcomeWith<TaskValues[K]>(kind, reply, (value) => {
    if (!VALUE_CHECKS[kind](value)) return false;
    const items = itemsOf(kind, value);
    return items === undefined || expectedItems === undefined || items.length === expectedItems;
  });
}

/**
 * Checks a worker's reply with the value check of its kind: the outcome envelope of every kind, the value by
 * `isValue` (how a worker entry with kinds beyond production's, such as the tests' fault entry, has its
 * values checked).
 *
 * @param kind - the task kind, for the error text.
 * @param reply - what the worker sent.
 * @param isValue - true when a successful outcome's value has the kind's shape.
 * @returns the reply, typed.
 * @throws SessionPoolError `SESSION_POOL_PROTOCOL` when the reply is not a well-formed outcome of that kind.
 */
export function validateOutcomeWith<V>(kind: string, reply: unknown, isValue: (value: unknown) => boolean): TaskOutcome<V> {
  if (isRecord(reply)) {
    if (reply['ok'] === false && isWireError(reply['error'])) return reply as TaskOutcome<V>;
    if (reply['ok'] === true && isValue(reply['value'])) return reply as TaskOutcome<V>;
  }
  throw new SessionPoolError('SESSION_POOL_PROTOCOL', `worker sent a malformed ${kind} result`);
}
