import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { replaceFileAtomically } from '../../../../io/atomic-file.js';
import { isMissingFile } from '../../../../io/regular-file.js';
import { errorMessage } from '../../../../protocol/errors.js';
import { isRecord } from '../../../../protocol/events.js';
import { DomainHandle, DomainValues } from '../../../host-kit/storage/domain-values.js';
import { checkDomainArguments, PluginStorageError } from '../../../host-kit/storage/plugin-storage.js';
import type { PluginStorage, StorageDomain, StorageOpenOptions } from '../../../host-api/host-api.js';

/** The entries of a domain file (key → JSON text); throws a plain `Error` describing what is wrong. */
function parseDomainFile(text: string): Map<string, string> {
  const content: unknown = JSON.parse(text);
  const entries = isRecord(content) ? content['entries'] : undefined;
  if (!Array.isArray(entries)) throw new Error('the file has no entries list');
  const values = new Map<string, string>();
  for (const entry of entries) {
    if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string') throw new Error('an entry is not [key, value]');
    values.set(entry[0], JSON.stringify(entry[1]));
  }
  return values;
}

/** Storage backed by JSON files in `directory` (created on the first write). */
export class JsonFileStorage implements PluginStorage {
  readonly #directory: string;
  /** Open domains by file name; concurrent opens of one domain share one load and one write queue. */
  readonly #domains = new Map<string, Promise<DomainValues>>();

  constructor(directory: string) {
    this.#directory = directory;
  }

  /** The directory holding the domain files. */
  get directory(): string {
    return this.#directory;
  }

  async open(domain: string, options: StorageOpenOptions): Promise<StorageDomain> {
    checkDomainArguments(domain, options);
    const version = options.version;
    const fileName = `${domain}.v${version}.json`;
    let loading = this.#domains.get(fileName);
    if (loading === undefined) {
      loading = this.#load(domain, version, fileName);
      this.#domains.set(fileName, loading);
      // A failed load is not cached: the next open tries the file again.
      loading.catch(() => this.#domains.delete(fileName));
    }
    return new DomainHandle(await loading, `${domain} v${version}`);
  }

  async #load(domain: string, version: number, fileName: string): Promise<DomainValues> {
    const path = join(this.#directory, fileName);
    let entries = new Map<string, string>();
    try {
      entries = parseDomainFile(await readFile(path, 'utf8'));
    } catch (error) {
      if (!isMissingFile(error)) {
        throw new PluginStorageError('HOST_STORAGE_IO', `storage domain ${domain} v${version} cannot be read: ${errorMessage(error)}`, {
          cause: error,
        });
      }
    }
    return new DomainValues(entries, (next) => this.#persist(domain, version, path, next));
  }

  async #persist(domain: string, version: number, path: string, entries: ReadonlyMap<string, string>): Promise<void> {
    const body = `{"domain":${JSON.stringify(domain)},"version":${version},"entries":[${[...entries].map(([key, text]) => `[${JSON.stringify(key)},${text}]`).join(',')}]}\n`;
    try {
      await mkdir(this.#directory, { recursive: true });
      await replaceFileAtomically(path, body);
    } catch (error) {
      throw new PluginStorageError('HOST_STORAGE_IO', `storage domain ${domain} v${version} cannot be written: ${errorMessage(error)}`, {
        cause: error,
      });
    }
  }
}
