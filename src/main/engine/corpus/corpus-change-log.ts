/**
 * What changed between two revisions of the warm corpus view (issue 27 item 2): a monotonically numbered revision per
 * assembled snapshot and, for each recent revision, the session ids whose listing or artifact may differ from the
 * revision before. A derived index (full-text search) re-examines only those ids instead of `stat`ing every log.
 *
 * The log is bounded: once it holds more than `limit` ids the oldest revisions are dropped, and a question reaching
 * back past them is answered "unknown", as is one spanning a full build (the view read everything again). Unknown
 * means the caller must look at everything; it never means "nothing changed".
 */

/** Default bound on the ids the log keeps (a change this large costs about what the whole listing costs anyway). */
export const DEFAULT_CHANGE_LOG_LIMIT = 4096;

/** The ids of one revision, or `null`: anything may have changed (a full build). */
interface Revision {
  readonly revision: number;
  readonly ids: ReadonlySet<string> | null;
}

/** The bounded change log of one corpus view; see the module comment. */
export class CorpusChangeLog {
  readonly #limit: number;
  #revision = 0;
  /** Retained revisions, oldest first; changes are known from `#knownFrom` on. */
  #revisions: Revision[] = [];
  #knownFrom = 0;
  #logged = 0;
  #pending = new Set<string>();
  #pendingAll = false;

  /** @param limit - how many ids the log keeps at most (at least 1). */
  constructor(limit: number = DEFAULT_CHANGE_LOG_LIMIT) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`change log limit must be a positive integer, got ${limit}`);
    this.#limit = limit;
  }

  /** Notes that the listing or the artifact of session `id` may change in the next revision. */
  touch(id: string): void {
    if (!this.#pendingAll) this.#pending.add(id);
  }

  /** Notes that anything may change in the next revision (a full build). */
  touchAll(): void {
    this.#pendingAll = true;
    this.#pending.clear();
  }

  /** Closes what was noted since the last revision into a new one, and returns its number. */
  commit(): number {
    this.#revision += 1;
    const ids = this.#pendingAll || this.#pending.size > this.#limit ? null : this.#pending;
    this.#pending = new Set();
    this.#pendingAll = false;
    this.#revisions.push({ revision: this.#revision, ids });
    this.#logged += ids?.size ?? 0;
    // Oldest first out; a question reaching back past what was dropped is answered "unknown".
    while (this.#logged > this.#limit) {
      const dropped = this.#revisions.shift() as Revision;
      this.#logged -= dropped.ids?.size ?? 0;
      this.#knownFrom = dropped.revision;
    }
    return this.#revision;
  }

  /**
   * The ids that may differ between revision `older` and revision `newer` (`older <= newer`), or `undefined` when
   * that is unknown (a revision dropped from the log, a full build between them, revisions out of order).
   */
  between(older: number, newer: number): ReadonlySet<string> | undefined {
    if (older > newer || newer > this.#revision || older < this.#knownFrom) return undefined;
    const ids = new Set<string>();
    for (const entry of this.#revisions) {
      if (entry.revision <= older || entry.revision > newer) continue;
      if (entry.ids === null) return undefined;
      for (const id of entry.ids) ids.add(id);
    }
    return ids;
  }
}
