/**
 * DCP's plugin storage (HOST.md §11) on a dsh host (docs/DSH-DCP.md §5): the domains of dsh's storage-domain
 * facility (`ctx.storageDomain`, `@deepseek-ai/dsh-storage-domain`) when the host has one, else memory. Every domain
 * this plugin opens is its own — `dcp_stats` becomes `sessionctx_dcp_stats` — so it never opens dsh-dcp's `dcp_stats`
 * domain, whose records have another shape (and which dsh opens only once per process). The facility validates a
 * table's records with its spec when it opens the domain; this plugin's spec accepts any JSON and DCP validates each
 * record itself, so one bad record is skipped instead of failing the whole domain.
 */
import { isLosslessJson } from '../protocol/lossless-json.js';
import type { PluginStorage, StorageDomain, StorageEntry, StorageOpenOptions } from '../main/host-api/host-api.js';
import { MemoryStorage } from '../main/host-kit/storage/memory-storage.js';
import { checkDomainArguments, PluginStorageError } from '../main/host-kit/storage/plugin-storage.js';
import type { DshDomain, DshDomainFacility, DshKvTable } from './dsh-dcp-host-shapes.js';

/** The prefix of every dsh domain this plugin opens. */
export const DSH_DOMAIN_PREFIX = 'sessionctx_';

/** The one table of each domain. */
const TABLE = 'records';

/** What `/dcp stats` says of statistics kept in memory because the host has no storage domain. */
export const MEMORY_SCOPE = 'in memory only: this dsh host has no storage domain';

/** The dsh domain name of a host-API domain (`dcp_stats` → `sessionctx_dcp_stats`; dsh allows `[a-z][a-z0-9_]*`). */
export function dshDomainName(domain: string): string {
  return `${DSH_DOMAIN_PREFIX}${domain.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;
}

/** A table value schema that admits every value (DCP validates its records on read). */
const ANY_VALUE = Object.freeze({ parse: (value: unknown): unknown => value });

/** One open dsh domain as a host-API domain: JSON values, fresh copies on read, sorted listing, closed means closed. */
class DshStorageDomain implements StorageDomain {
  readonly #domain: DshDomain;
  readonly #table: DshKvTable;
  readonly #label: string;
  #closed = false;

  constructor(domain: DshDomain, label: string) {
    this.#domain = domain;
    this.#table = domain.table(TABLE);
    this.#label = label;
  }

  async get(key: string): Promise<unknown> {
    this.#checkUsable(key);
    const value = this.#table.get(key);
    return value === undefined ? undefined : structuredClone(value);
  }

  async put(key: string, value: unknown): Promise<void> {
    this.#checkUsable(key);
    if (!isLosslessJson(value)) {
      throw new PluginStorageError(
        'HOST_STORAGE_VALUE',
        `storage domain ${this.#label}: the value for key ${JSON.stringify(key)} is not JSON`,
      );
    }
    try {
      await this.#table.put(key, structuredClone(value));
    } catch (error) {
      throw new PluginStorageError(
        'HOST_STORAGE_IO',
        `storage domain ${this.#label}: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  async list(): Promise<readonly StorageEntry[]> {
    this.#checkOpen();
    return [...this.#table.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => ({ key, value: structuredClone(value) }));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#domain.close();
  }

  #checkOpen(): void {
    if (this.#closed) throw new PluginStorageError('HOST_STORAGE_CLOSED', `storage domain ${this.#label} is closed`);
  }

  #checkUsable(key: unknown): void {
    this.#checkOpen();
    if (typeof key !== 'string') throw new PluginStorageError('HOST_STORAGE_ARGUMENT', `storage domain ${this.#label}: keys are strings`);
  }
}

/** Storage over dsh's storage-domain facility. */
class DshDomainStorage implements PluginStorage {
  readonly #facility: DshDomainFacility;

  constructor(facility: DshDomainFacility) {
    this.#facility = facility;
  }

  async open(domain: string, options: StorageOpenOptions): Promise<StorageDomain> {
    checkDomainArguments(domain, options);
    const name = dshDomainName(domain);
    const opened = await this.#facility.open({ name, version: options.version, tables: { [TABLE]: { valueSchema: ANY_VALUE } } });
    return new DshStorageDomain(opened, `${name} v${options.version}`);
  }
}

/** Storage in memory, for a host without a storage domain: kept for the plugin's lifetime, and `/dcp stats` says so. */
class ScopedMemoryStorage implements PluginStorage {
  readonly scope = MEMORY_SCOPE;
  readonly #memory = new MemoryStorage();

  open(domain: string, options: StorageOpenOptions): Promise<StorageDomain> {
    return this.#memory.open(domain, options);
  }
}

/** The facility when `value` looks like one. */
function facilityOf(value: unknown): DshDomainFacility | undefined {
  return typeof value === 'object' && value !== null && typeof (value as Partial<DshDomainFacility>).open === 'function'
    ? (value as DshDomainFacility)
    : undefined;
}

/**
 * The storage DCP reads at each `/dcp stats`: over the host's storage-domain facility whenever one is active (it may
 * arrive after the plugin, or go), else the in-memory fallback. The storage object made for a facility is kept while
 * the host keeps offering one (cordis may hand out a fresh proxy per lookup), so DCP keeps its open domain handle
 * between syncs and never opens the same dsh domain twice.
 */
export class DshStorageSelector {
  readonly #lookup: () => unknown;
  readonly #memory = new ScopedMemoryStorage();
  #storage: PluginStorage | undefined;

  /** `lookup` reads the host's facility (`ctx.get('storageDomain')`), `undefined` while it has none. */
  constructor(lookup: () => unknown) {
    this.#lookup = lookup;
  }

  /** The storage to use now. */
  current(): PluginStorage {
    const facility = facilityOf(this.#lookup());
    if (facility === undefined) {
      this.#storage = undefined;
      return this.#memory;
    }
    this.#storage ??= new DshDomainStorage(facility);
    return this.#storage;
  }

  /** True while the host offers a storage domain. */
  get persistent(): boolean {
    return facilityOf(this.#lookup()) !== undefined;
  }
}
