/**
 * In-memory plugin storage (HOST.md §11): domains live as long as the storage object. Used by tests and by
 * hosts that want statistics for the lifetime of one process only.
 */
import { DomainHandle, DomainValues } from './domain-values.js';
import { checkDomainArguments } from './plugin-storage.js';
import type { PluginStorage, StorageDomain, StorageOpenOptions } from '../../host-api/host-api.js';

/** Storage whose domains are maps in memory; every handle on the same domain and version shares one map. */
export class MemoryStorage implements PluginStorage {
  readonly #domains = new Map<string, DomainValues>();

  async open(domain: string, options: StorageOpenOptions): Promise<StorageDomain> {
    checkDomainArguments(domain, options);
    const label = `${domain} v${options.version}`;
    let values = this.#domains.get(label);
    if (values === undefined) {
      values = new DomainValues(new Map(), async () => {
        // Nothing to persist: the committed map is the storage.
      });
      this.#domains.set(label, values);
    }
    return new DomainHandle(values, label);
  }
}
