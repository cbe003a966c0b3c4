/**
 * A small cache of values computed from one file, valid while the file keeps its revision (SESSION-LOG.md §9.10:
 * device, inode, size, mtime and ctime): the Context view of a long session costs a whole-log replay, and a person
 * flips back and forth between sessions that did not change. Least recently used entries go first.
 */
import type { FileRevision } from '../../io/file-revision.js';
import { sameRevision } from '../../io/file-revision.js';

/** The cache. */
export class RevisionCache<T> {
  readonly #entries = new Map<string, { readonly path: string; readonly revision: FileRevision; readonly value: T }>();
  readonly #capacity: number;

  /**
   * @param capacity - how many values it keeps.
   */
  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /**
   * The value stored for `key`, when it was computed from `path` at `revision`.
   * @param key - what the value is of (a session id).
   * @param path - the file it must have been computed from.
   * @param revision - the file's revision now.
   */
  get(key: string, path: string, revision: FileRevision): T | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.path !== path || !sameRevision(entry.revision, revision)) return undefined;
    // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /**
   * Stores a value computed from `path` at `revision`.
   * @param key - what the value is of.
   * @param path - the file it was computed from.
   * @param revision - the revision it was computed at.
   * @param value - the value.
   */
  set(key: string, path: string, revision: FileRevision, value: T): void {
    this.#entries.delete(key);
    this.#entries.set(key, { path, revision, value });
    while (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }
}
