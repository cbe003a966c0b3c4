/**
 * Progress of a cold listing (issue 27 item 3): at 100,000 sessions the header reads of a listing take seconds, so
 * a library caller (and the CLI's progress line) is told how far it got. The listing walks the project directories
 * first, so the number of session directories to check is known before the first check.
 */

/** How far one listing got: session directories checked, of those the walk found. */
export interface ListingProgress {
  readonly checked: number;
  readonly total: number;
}

/** Called with each progress report of a listing; it must not throw (a listener's failure is not the listing's). */
export type ListingProgressListener = (progress: ListingProgress) => void;

/** Reports per listing: about this many, whatever the size (a report every 1% of the directories). */
const REPORTS_PER_LISTING = 100;

/** Counts one listing's checks and reports them to a listener: once at the start, every 1%, and once at the end. */
export class ListingProgressCounter {
  readonly #listener: ListingProgressListener | undefined;
  readonly #total: number;
  readonly #step: number;
  #checked = 0;

  /**
   * Reports `{checked: 0, total}` at once (the walk is done); with no listener every call is a no-op.
   * @param total - the session directories the walk found
   */
  constructor(total: number, listener: ListingProgressListener | undefined) {
    this.#listener = listener;
    this.#total = total;
    this.#step = Math.max(1, Math.ceil(total / REPORTS_PER_LISTING));
    this.#report();
  }

  /** One more directory checked; reports at every step and at the last one. */
  tick(): void {
    if (this.#listener === undefined) return;
    this.#checked += 1;
    if (this.#checked === this.#total || this.#checked % this.#step === 0) this.#report();
  }

  #report(): void {
    if (this.#listener === undefined) return;
    try {
      this.#listener({ checked: this.#checked, total: this.#total });
    } catch {
      // A progress listener that throws (a closed terminal) must not fail the listing it watches.
    }
  }
}
