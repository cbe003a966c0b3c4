/**
 * Change notifications for a session root, for the corpus view (`corpus-view.ts`): which directory of the
 * root's three levels (root, project directory, session directory) saw a change. Notifications only speed the
 * view up — its correctness bound rests on the `stat` sweep — so a directory that cannot be watched (the inotify
 * limit, a permission) is counted and left to the sweep.
 *
 * Two strategies. `recursive`: one `fs.watch(root, { recursive: true })`, where the platform implements it
 * natively (macOS FSEvents, Windows). `per-directory`: one non-recursive `fs.watch` per directory the view holds,
 * the default on Linux: Node 20 does accept `recursive: true` there (verified on 20.20), but emulates it in
 * JavaScript — a synchronous `readdirSync`/`statSync` walk of the whole tree at start, one inotify watch per file
 * *and* directory, and a `statSync` per event — which for 10,000 sessions blocks the event loop at start and
 * spends three times the watches. Directory watches see every entry change inside them (create, delete, rename,
 * append to an artifact), which is all the view needs.
 *
 * Watches are not persistent by default: a view never keeps its process alive; `close()` releases them all.
 */
import { watch, type FSWatcher } from 'node:fs';
import { join, sep } from 'node:path';
import { TimeSlice } from '../../../io/time-slice.js';

/** How a root is watched; see the module comment. */
export type WatchStrategy = 'per-directory' | 'recursive';

/** The strategy for a platform: native recursive watching where Node has it, per-directory watches elsewhere. */
export function defaultWatchStrategy(platform: NodeJS.Platform = process.platform): WatchStrategy {
  return platform === 'darwin' || platform === 'win32' ? 'recursive' : 'per-directory';
}

/**
 * A change below the root: the path components (relative to the root) of the entry that changed, as far as the
 * notification names it. `[]` is the root itself (or an unnamed change in it).
 */
export type ChangedPath = readonly string[];

/** Options of {@link RootWatcher}. */
export interface RootWatcherOptions {
  readonly root: string;
  /** Default {@link defaultWatchStrategy}. */
  readonly strategy?: WatchStrategy;
  /** Keep the process alive while watching (default `false`). */
  readonly persistent?: boolean;
  /** Called for every notification, synchronously from the watch callback. */
  readonly onChange: (changed: ChangedPath) => void;
}

interface HeldWatch {
  readonly watcher: FSWatcher;
  /** The directory's inode when the watch was placed: a directory replaced under the same name needs a new watch. */
  readonly ino: string;
}

/** Watches the directories of one root; see the module comment. */
export class RootWatcher {
  readonly strategy: WatchStrategy;
  readonly #root: string;
  readonly #persistent: boolean;
  readonly #onChange: (changed: ChangedPath) => void;
  readonly #watches = new Map<string, HeldWatch>();
  #failures = 0;
  #closed = false;

  constructor(options: RootWatcherOptions) {
    this.#root = options.root;
    this.strategy = options.strategy ?? defaultWatchStrategy();
    this.#persistent = options.persistent ?? false;
    this.#onChange = options.onChange;
  }

  /** Directories watched now. */
  get watched(): number {
    return this.#watches.size;
  }

  /** Watches that could not be placed, or failed later, since construction. */
  get failures(): number {
    return this.#failures;
  }

  /**
   * Watches the directory at `parts` (relative to the root) whose inode is `ino`; a no-op when it is already
   * watched at that inode, and for anything below the root with the recursive strategy (the root's watch covers
   * it). Returns whether the directory is watched now.
   */
  watch(parts: ChangedPath, ino: string): boolean {
    if (this.#closed) return false;
    if (this.strategy === 'recursive' && parts.length > 0) return this.#watches.has('');
    const key = parts.join('\u0000');
    const held = this.#watches.get(key);
    if (held !== undefined) {
      if (held.ino === ino) return true;
      this.unwatch(parts);
    }
    let watcher: FSWatcher;
    try {
      watcher = watch(
        join(this.#root, ...parts),
        { persistent: this.#persistent, recursive: this.strategy === 'recursive' },
        (_event, filename) => {
          if (this.#closed) return;
          const name = filename === null ? '' : String(filename);
          this.#onChange(name === '' ? parts : [...parts, ...name.split(sep).filter((part) => part !== '')]);
        },
      );
    } catch {
      // ENOSPC (the inotify limit), EACCES, or the directory vanished meanwhile: the stat sweep covers it.
      this.#failures += 1;
      return false;
    }
    watcher.on('error', () => {
      // A watch that fails later (its directory removed on some platforms): drop it and report the directory as
      // changed, so the view re-reads it (and places a new watch if the directory is back).
      if (this.#watches.get(key)?.watcher === watcher) this.#watches.delete(key);
      watcher.close();
      this.#failures += 1;
      if (!this.#closed) this.#onChange(parts);
    });
    this.#watches.set(key, { watcher, ino });
    return true;
  }

  /** Stops watching the directory at `parts` and every directory below it. */
  unwatch(parts: ChangedPath): void {
    const key = parts.join('\u0000');
    for (const [held, watch] of this.#watches) {
      if (held === key || (key === '' ? true : held.startsWith(`${key}\u0000`))) {
        watch.watcher.close();
        this.#watches.delete(held);
      }
    }
  }

  /** Closes every watch; no watch is placed afterwards. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    // In time slices (issue 27 item 6): closing a watch is a handle teardown of about 10 µs, and a view watches every
    // session directory (5,000 held the thread 54 ms in one stretch). Notifications meanwhile are ignored (closed).
    const slice = new TimeSlice();
    const held = [...this.#watches.values()];
    this.#watches.clear();
    for (const { watcher } of held) {
      if (slice.due()) await slice.hop();
      watcher.close();
    }
  }
}
