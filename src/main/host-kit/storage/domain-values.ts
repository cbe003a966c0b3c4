/**
 * The shared core of a storage domain: the committed entries as JSON text, a write queue that applies puts in
 * call order, and the handle plugins hold. Backends differ only in how a new set of entries is persisted.
 */
import { isLosslessJson } from '../../../protocol/lossless-json.js';
import { PluginStorageError } from './plugin-storage.js';
import type { StorageDomain, StorageEntry } from '../../host-api/host-api.js';

/** Persists the complete next set of entries (key → JSON text); the domain commits them only if this resolves. */
export type PersistEntries = (entries: ReadonlyMap<string, string>) => Promise<void>;

/** The committed entries of one domain, shared by every handle opened on it. */
export class DomainValues {
  #entries: ReadonlyMap<string, string>;
  readonly #persist: PersistEntries;
  #queue: Promise<void> = Promise.resolve();

  constructor(entries: ReadonlyMap<string, string>, persist: PersistEntries) {
    this.#entries = entries;
    this.#persist = persist;
  }

  /** The JSON text under `key`, or `undefined`. */
  read(key: string): string | undefined {
    return this.#entries.get(key);
  }

  /** Every `[key, JSON text]`, sorted by key. */
  readAll(): Array<[string, string]> {
    return [...this.#entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Queues a write; resolves once persisted and committed, rejects (committing nothing) when persisting fails. */
  write(key: string, text: string): Promise<void> {
    const run = this.#queue.then(async () => {
      const next = new Map(this.#entries);
      next.set(key, text);
      await this.#persist(next);
      this.#entries = next;
    });
    this.#queue = run.catch(() => {
      // The caller of this write receives its rejection; later writes start from the last committed entries.
    });
    return run;
  }
}

/** A plugin's handle on a domain. */
export class DomainHandle implements StorageDomain {
  readonly #values: DomainValues;
  readonly #label: string;
  #closed = false;

  /** `label` names the domain in error messages, e.g. `dcp_stats v1`. */
  constructor(values: DomainValues, label: string) {
    this.#values = values;
    this.#label = label;
  }

  async get(key: string): Promise<unknown> {
    this.#checkUsable(key);
    const text = this.#values.read(key);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  }

  async put(key: string, value: unknown): Promise<void> {
    this.#checkUsable(key);
    if (!isLosslessJson(value)) {
      throw new PluginStorageError(
        'HOST_STORAGE_VALUE',
        `storage domain ${this.#label}: the value for key ${JSON.stringify(key)} is not JSON`,
      );
    }
    await this.#values.write(key, JSON.stringify(value));
  }

  async list(): Promise<readonly StorageEntry[]> {
    this.#checkOpen();
    return this.#values.readAll().map(([key, text]) => ({ key, value: JSON.parse(text) as unknown }));
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #checkOpen(): void {
    if (this.#closed) throw new PluginStorageError('HOST_STORAGE_CLOSED', `storage domain ${this.#label} is closed`);
  }

  #checkUsable(key: unknown): void {
    this.#checkOpen();
    if (typeof key !== 'string') throw new PluginStorageError('HOST_STORAGE_ARGUMENT', `storage domain ${this.#label}: keys are strings`);
  }
}
