/**
 * The listing's header cache (SESSION-LOG.md §9.13 step 4–5 at the cost of SESSION-REFERENCE.md §7.5): the
 * result of {@link readListedHeader} per artifact path, kept with the file revision it was read at, so a
 * listing of an unchanged artifact costs one `stat` instead of an open, a read and a close.
 *
 * Equivalence: the listed header is a function of the artifact's bytes. A result is stored under the revision a
 * `stat` showed just before the read — device, inode, size, mtime and ctime, all in nanoseconds — and reused only
 * while a fresh `stat` shows that same revision. Every append, truncation, in-place rewrite, replacement by rename,
 * or permission change moves at least one of them, so the artifact is read again exactly when re-reading could give
 * a different answer. A write landing between that `stat` and the read files newer bytes under the older revision,
 * which no later `stat` shows again: the entry is never served (the listing that read it answers with what it read,
 * as an uncached read would), so no second `stat` after the read is needed (it cost one call per log of a cold
 * listing). The residual risk (a same-size in-place rewrite within one timestamp tick) is the one the title index's
 * revision check already accepts (§10.7 lookup rule 1). Failures are never cached: they are read (and thrown) again.
 */
import { statPath } from '../../../io/callback-fs.js';
import type { Compression } from '../../../protocol/storage-paths.js';
import { revisionOf, sameRevision, type FileRevision } from '../../../io/file-revision.js';
import { listedHeaderOfLine, readListedHeader, type ListedHeaderOutcome } from './header-reader.js';

/**
 * The header line (LF included) the title index recorded for `path` at exactly `revision`, if it did: an artifact
 * the index has scanned at that revision has that first line, so the listing need not open it (no read, no frame
 * decoded). Never rejects with anything but the signal's reason.
 */
export type IndexedHeaderLine = (path: string, revision: FileRevision) => Promise<Uint8Array | undefined>;

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

interface CachedHeader {
  readonly revision: FileRevision;
  /** What the header read found (a header, or why the listing skips the artifact). */
  readonly listed: ListedHeaderOutcome;
}

/** The artifact's revision, or `undefined` when it cannot be stat'ed. */
async function revisionOrUndefined(path: string): Promise<FileRevision | undefined> {
  try {
    // Asynchronous on purpose: a host's main thread must never block on the file system (a synchronous stat
    // per session would stall the event loop for the whole listing of a large root).
    return revisionOf(await statPath(path, { bigint: true }));
  } catch {
    // Missing or unreachable: the caller reads the header itself, which skips or fails exactly as uncached.
    return undefined;
  }
}

/** Listed headers by artifact path, each valid for one file revision; see the module comment. */
export class ListedHeaderCache {
  readonly #entries = new Map<string, CachedHeader>();
  /** The revision each path had when a listing last looked at it (whether or not the header was cached). */
  readonly #listedRevisions = new Map<string, FileRevision>();
  readonly #indexed: IndexedHeaderLine | undefined;
  #hits = 0;
  #indexHits = 0;

  /** @param indexed - the title index's recorded header lines (a listing in a fresh process reads no header it knows). */
  constructor(indexed?: IndexedHeaderLine) {
    this.#indexed = indexed;
  }

  /** How many reads were answered from the title index's recorded header line (for tests). */
  get indexHits(): number {
    return this.#indexHits;
  }

  /** How many reads were answered from the cache since construction (for tests). */
  get hits(): number {
    return this.#hits;
  }

  /**
   * The revision `path` had when the most recent listing read it, or `undefined` when no listing could stat it. The
   * title lookup of the same query call uses it instead of a `stat` of its own (SESSION-LOG.md §10.5: the
   * observations follow the call's listing).
   */
  listedRevision(path: string): FileRevision | undefined {
    return this.#listedRevisions.get(path);
  }

  /** What {@link readListedHeader} returns for `path` now, read again only when the file's revision changed. */
  async read(path: string, compression: Compression, signal?: AbortSignal): Promise<ListedHeaderOutcome> {
    signal?.throwIfAborted();
    const before = await revisionOrUndefined(path);
    signal?.throwIfAborted();
    if (before === undefined) this.#listedRevisions.delete(path);
    else this.#listedRevisions.set(path, before);
    if (before === undefined) {
      this.#entries.delete(path);
      return readListedHeader(path, compression, signal);
    }
    const cached = this.#entries.get(path);
    if (cached !== undefined && sameRevision(cached.revision, before)) {
      this.#hits += 1;
      return cached.listed;
    }
    this.#entries.delete(path);
    const line = await this.#indexed?.(path, before);
    if (line !== undefined && line[line.length - 1] === 0x0a) {
      const recalled = listedHeaderOfLine(utf8.decode(line.subarray(0, line.length - 1)));
      this.#indexHits += 1;
      this.#entries.set(path, { revision: before, listed: recalled });
      return recalled;
    }
    const listed = await readListedHeader(path, compression, signal);
    // Kept with `before`, the object the listed revisions and the view already hold (one revision object per log).
    this.#entries.set(path, { revision: before, listed });
    return listed;
  }
}
