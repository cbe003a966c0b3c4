/**
 * The per-session writer lock (SESSION-LOG.md §9.16 rule 4): `<session dir>/session.lock`, published atomically
 * (a fully written temp file `link`ed into place, which fails with EEXIST like `O_EXCL`), holding the owner's pid,
 * process start time, boot id, host name, acquisition time and a random token. Readers never take it.
 *
 * A lock is stale — and broken — only when it names this host and its owner is provably gone: another boot, a pid
 * that is not alive, or a live pid whose process start time differs (the pid was reused). Only the holder of
 * `<lock>.break` removes a stale lock, after reading it again, so two processes breaking the same stale lock at once
 * never remove a lock that a third has just taken; the removal renames the lock aside and checks its token first
 * (`breakStale`).
 *
 * Not covered (RELIABILITY.md): network file systems (link/rename atomicity and pid checks are per host), a holder
 * on another host (never judged stale: it is reported as a live holder), and tools that ignore the lock (dsh).
 */
import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { SessionLogError } from '../../../protocol/errors.js';
import { isMissingFile, storeIoError, systemErrorCode } from '../../../io/regular-file.js';

/** The lock file's name inside a session directory. */
export const LOCK_FILE_NAME = 'session.lock';

/** How many times a lock acquisition retries after breaking a stale lock or waiting for another breaker (2 ms each). */
const ACQUIRE_ATTEMPTS = 500;

/** What a lock file records about its holder. */
export interface LockOwner {
  readonly pid: number;
  /** Linux: field 22 of `/proc/<pid>/stat` (clock ticks since boot); `null` where it cannot be read. */
  readonly startTime: string | null;
  /** Linux: `/proc/sys/kernel/random/boot_id`; `null` elsewhere. */
  readonly bootId: string | null;
  readonly host: string;
  /** ISO time of acquisition. */
  readonly acquiredAt: string;
  /** Random; tells this acquisition apart from any later one by the same process. */
  readonly token: string;
}

async function readTextOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    // Not Linux, or the process is gone: the caller falls back to what it can still check (the pid alone).
    return null;
  }
}

/**
 * The start time of process `pid`: field 22 of `/proc/<pid>/stat` on Linux (fields counted after the command name,
 * which may itself contain spaces and parentheses); `null` when it cannot be read (another OS, or no such process).
 */
export async function processStartTime(pid: number): Promise<string | null> {
  const stat = await readTextOrNull(`/proc/${pid}/stat`);
  if (stat === null) return null;
  const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // afterName[0] is field 3 (state), so field 22 is at index 19.
  return afterName[19] ?? null;
}

let bootIdMemo: Promise<string | null> | undefined;
function bootId(): Promise<string | null> {
  bootIdMemo ??= readTextOrNull('/proc/sys/kernel/random/boot_id').then((text) => (text === null ? null : text.trim()));
  return bootIdMemo;
}

/** True when a process with this pid exists (EPERM: it exists but belongs to another user). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return systemErrorCode(error) === 'EPERM';
  }
}

/** Whether a lock's owner is provably gone (only decidable on the owner's own host). */
export async function isStale(owner: LockOwner): Promise<boolean> {
  if (owner.host !== hostname()) return false;
  const boot = await bootId();
  if (boot !== null && owner.bootId !== null && boot !== owner.bootId) return true;
  if (!pidAlive(owner.pid)) return true;
  if (owner.startTime === null) return false;
  const start = await processStartTime(owner.pid);
  return start !== null && start !== owner.startTime;
}

/** Parses a lock file; `undefined` for text that is not a lock this module wrote. */
function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (
      typeof value.pid !== 'number' ||
      typeof value.host !== 'string' ||
      typeof value.token !== 'string' ||
      typeof value.acquiredAt !== 'string'
    )
      return undefined;
    return {
      pid: value.pid,
      startTime: value.startTime ?? null,
      bootId: value.bootId ?? null,
      host: value.host,
      acquiredAt: value.acquiredAt,
      token: value.token,
    };
  } catch {
    // Not JSON: not a lock this module wrote (it publishes complete files only); reported as such by the caller.
    return undefined;
  }
}

type ReadLock =
  | { readonly kind: 'missing' }
  | { readonly kind: 'unreadable'; readonly text: string }
  | { readonly kind: 'owner'; readonly owner: LockOwner };

async function readLock(path: string): Promise<ReadLock> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isMissingFile(error)) return { kind: 'missing' };
    throw storeIoError('read', path, error);
  }
  const owner = parseOwner(text);
  return owner === undefined ? { kind: 'unreadable', text } : { kind: 'owner', owner };
}

/** `SESSION_STORE_LOCKED` naming the holder. */
export function lockedError(id: string, path: string, owner: LockOwner): SessionLogError {
  return new SessionLogError(
    'SESSION_STORE_LOCKED',
    `session "${id}" is locked by another writer (pid ${owner.pid} on ${owner.host} since ${owner.acquiredAt}; lock file ${JSON.stringify(path)})`,
  );
}

/**
 * Breaks the stale lock `judged` at `path`: renames whatever is there to a unique name, then checks that it was
 * `judged` (same token). If it was not — another process broke the stale lock and took a fresh one between our
 * read and our rename — the fresh lock is put back (`link`, which never replaces a lock taken meanwhile).
 */
async function breakStale(path: string, judged: LockOwner): Promise<void> {
  const aside = `${path}.stale.${randomBytes(6).toString('hex')}`;
  try {
    await rename(path, aside);
  } catch (error) {
    // Someone else broke (or released) it first: nothing to break.
    if (isMissingFile(error)) return;
    throw storeIoError('break stale lock', path, error);
  }
  const moved = await readLock(aside);
  if (moved.kind === 'owner' && moved.owner.token !== judged.token) {
    try {
      await link(aside, path);
    } catch (error) {
      // EEXIST: a third writer holds the lock now; the owner of the moved lock finds its lock lost at its next
      // append (`SessionLock.assertHeld`) instead of writing beside another writer.
      if (systemErrorCode(error) !== 'EEXIST') throw storeIoError('restore lock', path, error);
    }
  }
  await unlinkIfPresent(aside);
}

async function unlinkIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    // Already gone (a concurrent breaker or release removed it): that is the state we wanted.
    if (!isMissingFile(error)) throw storeIoError('remove', path, error);
  }
}

/**
 * Takes `<lock>.break` (the right to remove a stale lock) by linking this acquisition's own lock record there.
 * A break lock left by a crashed breaker is stale by the same rules and broken with {@link breakStale} (two
 * processes meeting a crashed breaker's lock at the same instant is the one race this does not close). Returns
 * false when another live process holds it.
 */
async function takeBreakLock(record: string, breakPath: string): Promise<boolean> {
  try {
    await link(record, breakPath);
    return true;
  } catch (error) {
    if (systemErrorCode(error) !== 'EEXIST') throw storeIoError('create lock', breakPath, error);
  }
  const current = await readLock(breakPath);
  if (current.kind === 'owner' && (await isStale(current.owner))) await breakStale(breakPath, current.owner);
  // An unreadable break lock is not this module's: leave it, and let the acquisition run out of attempts (LOCKED).
  return false;
}

async function releaseBreakLock(breakPath: string, token: string): Promise<void> {
  const current = await readLock(breakPath);
  if (current.kind === 'owner' && current.owner.token === token) await unlinkIfPresent(breakPath);
}

/** A held session lock. */
export class SessionLock {
  /** The lock file. */
  readonly path: string;
  /** What the lock file records. */
  readonly owner: LockOwner;
  private readonly id: string;
  private released = false;

  /** @internal Use {@link acquireSessionLock}. */
  constructor(id: string, path: string, owner: LockOwner) {
    this.id = id;
    this.path = path;
    this.owner = owner;
  }

  /**
   * Fails unless the lock file is still this acquisition's (someone may have removed it by hand, or broken it
   * believing it stale). Checked before every write, so a writer that lost its lock writes nothing more.
   *
   * @throws SessionLogError `SESSION_STORE_LOCKED`.
   */
  async assertHeld(): Promise<void> {
    const current = this.released ? { kind: 'missing' as const } : await readLock(this.path);
    if (current.kind === 'owner' && current.owner.token === this.owner.token) return;
    if (current.kind === 'owner') throw lockedError(this.id, this.path, current.owner);
    throw new SessionLogError(
      'SESSION_STORE_LOCKED',
      `session "${this.id}": this writer's lock ${JSON.stringify(this.path)} was released or removed; acquire the writer again`,
    );
  }

  /** Removes the lock file when it is still this acquisition's; idempotent. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    const current = await readLock(this.path);
    if (current.kind === 'owner' && current.owner.token === this.owner.token) await unlinkIfPresent(this.path);
  }
}

/**
 * Takes the writer lock of the session directory `dir` (which must exist), breaking a stale one.
 *
 * @throws SessionLogError `SESSION_STORE_LOCKED` when a live writer (or a holder on another host, or an unreadable
 *   lock file) holds it; a typed store I/O error when the directory cannot be written.
 */
export async function acquireSessionLock(dir: string, id: string): Promise<SessionLock> {
  const path = join(dir, LOCK_FILE_NAME);
  const owner: LockOwner = {
    pid: process.pid,
    startTime: await processStartTime(process.pid),
    bootId: await bootId(),
    host: hostname(),
    acquiredAt: new Date().toISOString(),
    token: randomBytes(12).toString('hex'),
  };
  const temp = `${path}.${owner.token}.tmp`;
  const breakPath = `${path}.break`;
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(owner)}\n`);
      // A lock file that a power loss left empty would block the session until removed by hand.
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    await unlinkIfPresent(temp);
    throw storeIoError('create lock', temp, error);
  }
  try {
    for (let attempt = 0; attempt < ACQUIRE_ATTEMPTS; attempt += 1) {
      try {
        await link(temp, path);
        return new SessionLock(id, path, owner);
      } catch (error) {
        if (systemErrorCode(error) !== 'EEXIST') throw storeIoError('create lock', path, error);
      }
      const current = await readLock(path);
      if (current.kind === 'missing') continue;
      if (current.kind === 'unreadable') {
        throw new SessionLogError(
          'SESSION_STORE_LOCKED',
          `session "${id}" has an unreadable lock file ${JSON.stringify(path)}; remove it if no writer is running`,
        );
      }
      if (!(await isStale(current.owner))) throw lockedError(id, path, current.owner);
      // Only the holder of the break lock removes a stale lock, after reading it again: no lock file can appear at
      // the path meanwhile (only a breaker removes a dead holder's lock), so a live lock is never removed.
      if (await takeBreakLock(temp, breakPath)) {
        try {
          const again = await readLock(path);
          if (again.kind === 'owner' && again.owner.token === current.owner.token) await breakStale(path, current.owner);
        } finally {
          await releaseBreakLock(breakPath, owner.token);
        }
      } else {
        // Another process is breaking it: wait for it, then meet its lock (or the free path).
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
    throw new SessionLogError('SESSION_STORE_LOCKED', `session "${id}": the lock ${JSON.stringify(path)} kept changing hands; try again`);
  } finally {
    await unlinkIfPresent(temp);
  }
}
