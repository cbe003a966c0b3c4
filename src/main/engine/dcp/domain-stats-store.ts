/**
 * The cross-session aggregate store behind `/dcp stats` (DCP.md §15.3): one record per session in the storage
 * domain `dcp_stats` v1, written forward only by {@link DomainStatsStore.sync}, and summed over every valid record
 * for the domain block. Storage is optional and may arrive late (HOST.md §11); every storage failure ends up in
 * the returned status and nowhere else.
 */
import { errorMessage } from '../../../protocol/errors.js';
import { isNonNegativeSafeInteger, isRecord } from '../../../protocol/events.js';
import type { DcpLedger } from '../../../protocol/dcp/ledger.js';
import { historyReduction } from '../../../protocol/dcp/ledger.js';
import type { DomainStatsInput } from '../../../protocol/dcp/stats-block.js';
import { cursorAheadReason, STORAGE_NOT_WIRED_REASON } from '../../../protocol/dcp/stats-block.js';
import type { PluginStorage, StorageDomain, StorageEntry } from '../../host-api/host-api.js';
import { assertNever } from '../../../protocol/assert-never.js';

/** The storage domain name (§15.3). */
export const DCP_STATS_DOMAIN = 'dcp_stats';

/** The storage domain version (§15.3). */
export const DCP_STATS_VERSION = 1;

/** The stored ledger: the §15.1 figures plus their signed `historyReduction`, so a reader can check the equation. */
export interface StoredDcpLedger extends DcpLedger {
  readonly historyReduction: number;
}

/** One session's record, stored under its session id. */
export interface DomainStatsRecord {
  readonly v: 1;
  readonly sessionId: string;
  /** Events covered: the seed's `lastProcessedSeq + 1`. */
  readonly eventCount: number;
  readonly ledger: StoredDcpLedger;
  /** ISO time of the write (`Date.prototype.toISOString` form). */
  readonly updatedAt: string;
}

/**
 * Ledger fields that must be non-negative safe integers: counts, and token sums of estimates (never below 0).
 *
 * §15.3 asks for "safe non-negative integers", yet §15.1 makes three stored figures signed differences:
 * `expansionTokens` (`claim − est(expansion)`, normally negative), `cleanupTokens` (`claim − est(cleaned)`; a
 * summary shorter than `[stored in bK]` or a re-serialised argument string can make it negative) and
 * `historyReduction` (negative means overhead). Requiring those to be non-negative would reject the records of
 * valid sessions, so they are checked as safe integers of either sign; the ledger equation still binds them.
 */
const UNSIGNED_LEDGER_FIELDS = [
  'shadowedTokens',
  'checkpointTokens',
  'blockCount',
  'pruneTokens',
  'pruneReplacements',
  'inlineCleanups',
  'markerTokens',
] as const satisfies ReadonlyArray<keyof DcpLedger>;

/** The signed ledger fields (see {@link UNSIGNED_LEDGER_FIELDS} for why they may be negative). */
const SIGNED_LEDGER_FIELDS = ['expansionTokens', 'cleanupTokens', 'historyReduction'] as const satisfies ReadonlyArray<
  keyof StoredDcpLedger
>;

/** The record for `ledger` covering `eventCount` events, written at `updatedAt`; key order is the stored order. */
export function domainStatsRecord(sessionId: string, eventCount: number, ledger: DcpLedger, updatedAt: string): DomainStatsRecord {
  const stored: StoredDcpLedger = {
    shadowedTokens: ledger.shadowedTokens,
    checkpointTokens: ledger.checkpointTokens,
    blockCount: ledger.blockCount,
    expansionTokens: ledger.expansionTokens,
    pruneTokens: ledger.pruneTokens,
    pruneReplacements: ledger.pruneReplacements,
    cleanupTokens: ledger.cleanupTokens,
    inlineCleanups: ledger.inlineCleanups,
    markerTokens: ledger.markerTokens,
    historyReduction: historyReduction(ledger),
  };
  return { v: 1, sessionId, eventCount, ledger: stored, updatedAt };
}

/** True for the exact `toISOString` form of a valid time. */
function isIsoTime(value: unknown): value is string {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value)) && new Date(value).toISOString() === value;
}

/** The stored ledger when `value` is one: every field of the right integer kind and the equation holding. */
function parseStoredLedger(value: unknown): StoredDcpLedger | undefined {
  if (!isRecord(value)) return undefined;
  if (!UNSIGNED_LEDGER_FIELDS.every((field) => isNonNegativeSafeInteger(value[field]))) return undefined;
  if (!SIGNED_LEDGER_FIELDS.every((field) => Number.isSafeInteger(value[field]))) return undefined;
  const ledger = value as unknown as StoredDcpLedger;
  return historyReduction(ledger) === ledger.historyReduction ? ledger : undefined;
}

/**
 * The record stored under `key` when `value` is valid (§15.3 "on read, the record is validated"): `v === 1`, the
 * session id equal to the key, a non-negative safe `eventCount`, an ISO `updatedAt` and a valid ledger. Extra keys
 * are ignored. `undefined` for anything else.
 */
export function parseDomainStatsRecord(key: string, value: unknown): DomainStatsRecord | undefined {
  if (!isRecord(value) || value['v'] !== 1 || value['sessionId'] !== key) return undefined;
  if (!isNonNegativeSafeInteger(value['eventCount']) || !isIsoTime(value['updatedAt'])) return undefined;
  return parseStoredLedger(value['ledger']) === undefined ? undefined : (value as unknown as DomainStatsRecord);
}

/** The field-wise sum of the valid records of a domain, and how many records were skipped as invalid. */
export interface DomainAggregate {
  readonly sessions: number;
  readonly blocks: number;
  readonly historyReduction: number;
  readonly invalidRecords: number;
}

/** Sums the valid records of `entries` (one per session: the latest); invalid ones are skipped and counted. O(entries). */
export function aggregateDomainRecords(entries: readonly StorageEntry[]): DomainAggregate {
  let sessions = 0;
  let blocks = 0;
  let reduction = 0;
  let invalidRecords = 0;
  for (const entry of entries) {
    const record = parseDomainStatsRecord(entry.key, entry.value);
    if (record === undefined) {
      invalidRecords += 1;
      continue;
    }
    sessions += 1;
    blocks += record.ledger.blockCount;
    reduction += record.ledger.historyReduction;
  }
  return { sessions, blocks, historyReduction: reduction, invalidRecords };
}

/** What one sync observed of a session: its id, the events covered, and its ledger (computed only when written). */
export interface DomainSyncInput {
  readonly sessionId: string;
  /** `events.length` when the sync runs. */
  readonly eventCount: number;
  readonly ledger: () => DcpLedger;
}

/** How a sync ended before the aggregate is read: `current` (this session's record is stored) or `stale` with its reason. */
type SyncOutcome = { readonly status: 'current'; readonly lastSync: string } | { readonly status: 'stale'; readonly reason: string };

/** The `dcp_stats` store of one plugin instance. The domain handle is opened on first use and kept. */
export class DomainStatsStore {
  readonly #storage: () => PluginStorage | undefined;
  readonly #now: () => number;
  /** The open domain and the storage it came from; a failed open is forgotten so the next sync retries. */
  #opened: { readonly storage: PluginStorage; readonly domain: Promise<StorageDomain> } | undefined;

  /** `storage` is read at every sync, since storage may arrive after the plugin started; `now` stamps `updatedAt`. */
  constructor(storage: () => PluginStorage | undefined, now: () => number = Date.now) {
    this.#storage = storage;
    this.#now = now;
  }

  /**
   * §15.3 `sync()`: reads the session's record; a stored `eventCount` at or past `eventCount` is kept (nothing is
   * written; past it the status is stale), otherwise the new record is put. Returns the domain block's input. Never
   * rejects: no storage is `unavailable (storage not wired)`, a failed write is `stale (<message>)` with the
   * aggregate as it stood (the old view), and a failed open or read is `unavailable (<message>)`.
   */
  async sync(input: DomainSyncInput): Promise<DomainStatsInput> {
    const storage = this.#storage();
    if (storage === undefined) return { status: 'unavailable', reason: STORAGE_NOT_WIRED_REASON, invalidRecordsSkipped: 0 };
    let domain: StorageDomain;
    try {
      domain = await this.#domainOf(storage);
    } catch (error) {
      return { status: 'unavailable', reason: errorMessage(error), invalidRecordsSkipped: 0 };
    }
    let stored: unknown;
    try {
      stored = await domain.get(input.sessionId);
    } catch (error) {
      return { status: 'unavailable', reason: errorMessage(error), invalidRecordsSkipped: 0 };
    }
    // An invalid record of this session is treated as absent and overwritten by the fresh one.
    const record = parseDomainStatsRecord(input.sessionId, stored);
    if (record !== undefined && record.eventCount > input.eventCount) {
      return this.#view(domain, { status: 'stale', reason: cursorAheadReason(record.eventCount, input.eventCount) }, input.eventCount);
    }
    if (record !== undefined && record.eventCount === input.eventCount) {
      return this.#view(domain, { status: 'current', lastSync: record.updatedAt }, input.eventCount, storage.scope);
    }
    const next = domainStatsRecord(input.sessionId, input.eventCount, input.ledger(), new Date(this.#now()).toISOString());
    try {
      await domain.put(input.sessionId, next);
    } catch (error) {
      return this.#view(domain, { status: 'stale', reason: errorMessage(error) }, input.eventCount);
    }
    return this.#view(domain, { status: 'current', lastSync: next.updatedAt }, input.eventCount, storage.scope);
  }

  /** Closes the open domain handle, if any. */
  async close(): Promise<void> {
    const opened = this.#opened;
    this.#opened = undefined;
    if (opened === undefined) return;
    let domain: StorageDomain;
    try {
      domain = await opened.domain;
    } catch {
      // The open failed and was reported by the sync that started it; there is no handle to close.
      return;
    }
    await domain.close();
  }

  /** The domain block from the current `list()`: `current` with this session's last sync, or `stale` (the old view). */
  async #view(domain: StorageDomain, outcome: SyncOutcome, observed: number, scope?: string): Promise<DomainStatsInput> {
    let entries: readonly StorageEntry[];
    try {
      entries = await domain.list();
    } catch (error) {
      return { status: 'unavailable', reason: errorMessage(error), invalidRecordsSkipped: 0 };
    }
    const aggregate = aggregateDomainRecords(entries);
    switch (outcome.status) {
      case 'current':
        return {
          status: 'current',
          sessions: aggregate.sessions,
          blocks: aggregate.blocks,
          historyReduction: aggregate.historyReduction,
          lastSync: outcome.lastSync,
          invalidRecordsSkipped: aggregate.invalidRecords,
          ...(scope === undefined ? {} : { scope }),
        };
      case 'stale':
        return {
          status: 'stale',
          reason: outcome.reason,
          sessions: aggregate.sessions,
          blocks: aggregate.blocks,
          observedCursor: observed,
          invalidRecordsSkipped: aggregate.invalidRecords,
        };
      default:
        return assertNever(outcome, 'unexpected sync outcome');
    }
  }

  /** The domain handle on `storage`, opened once. */
  #domainOf(storage: PluginStorage): Promise<StorageDomain> {
    if (this.#opened?.storage === storage) return this.#opened.domain;
    const domain = storage.open(DCP_STATS_DOMAIN, { version: DCP_STATS_VERSION });
    const opened = { storage, domain };
    this.#opened = opened;
    domain.catch(() => {
      // The caller of this sync receives the failure as its status; forgetting the handle lets the next sync retry.
      if (this.#opened === opened) this.#opened = undefined;
    });
    return domain;
  }
}
