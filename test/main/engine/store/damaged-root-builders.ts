/**
 * A damaged copy of a dsh-small fixture root (test/fixtures/dsh-small, never modified itself): one corrupt
 * header, a FIFO, a directory, a socket and a dangling link each in place of one session's log, and one project
 * directory that cannot be read, so that tests can check that damage stays local (every other session is listed
 * and reads as on the undamaged root) and that nothing hangs.
 *
 * An unreadable directory or file needs a non-root user (root reads through `chmod 000`). When the tests run as
 * root, {@link AccessDenial} makes the file system refuse those paths instead: it replaces the `node:fs/promises`
 * functions the store calls (and re-syncs the ESM bindings with `syncBuiltinESMExports`) so that they fail
 * exactly as the kernel fails them for a non-root process — EACCES for listing or opening a mode-000 directory
 * and for anything beneath it, EACCES for opening a mode-000 file.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs, { closeSync, constants, openSync } from 'node:fs';
import fsp, { chmod, cp, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Compression } from '../../../../src/protocol/storage-paths.js';
import { RAW_ROOT, ZSTD_ROOT } from '../../../support/fixtures.js';
import { decodeFrames, makeTempDir, removeTempDir } from './store-test-builders.js';

/** True when this process runs as root (permission bits do not stop it). */
export const RUNNING_AS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0;

/** The project directory made unreadable, and the sessions it hides. */
export const UNREADABLE_PROJECT = '--Users-alice-Code-Notes~0020App~0020~0028beta~0029-caf~00E9-sync--';
export const HIDDEN_IDS = [
  'session-3b46fe77-76fd-4c0b-8385-beecf0d68e3a',
  'session-a2470bba-537b-4474-9cb8-e4c2bc4e00d9',
  'session-bdb6fde9-318a-4aa6-8f98-10d7a3a22414',
] as const;

/** The damaged sessions: project directory and id. */
export const DAMAGED = {
  corruptHeader: { project: '--home-dev-projects-webshop--', id: 'session-9d029d81-e515-48ac-b168-fef7011f3491' },
  fifo: { project: '--srv-infra-terraform--', id: 'session-0cc527e0-336b-45ac-803e-e8580986bd80' },
  directory: { project: '_no-cwd', id: 'session-24445f64-0c0f-4d8f-8925-279091e56cc1' },
  socket: { project: '--home-dev-projects-ml-pipeline--', id: 'session-f8151068-dc58-4d60-b7e2-f553f8b6d366' },
  brokenLink: { project: '--srv-infra-terraform--', id: 'session-b99d11fb-ed8b-457b-bc61-115cdd9c0d46' },
} as const;

/** The sessions left intact (every fixture session that is neither damaged nor hidden). */
export const HEALTHY_IDS = [
  'session-0219bec5-a1ed-4e22-aa5b-249c1571b8ca',
  'session-547c4005-0b6e-49a0-9497-6be9b6b464cd',
  'session-96692971-d1af-4d7b-a519-2e3dc0969b7e',
  'session-a7eb71e0-a55c-4c81-b989-f0c51c63c83f',
  'session-b2f4f8ab-862e-4eff-b7d3-68298f7abfc7',
  'session-ca7027f6-8fd2-48d1-b5ed-3c59f38e7cc7',
] as const;

/** A Node-shaped system error, as `fs` throws it. */
function systemError(code: string, errno: number, description: string, syscall: string, path: string): Error {
  return Object.assign(new Error(`${code}: ${description}, ${syscall} '${path}'`), { errno, code, syscall, path });
}

type FsFunctionName = 'readdir' | 'stat' | 'lstat' | 'open' | 'realpath' | 'readFile';

/** The syscall Node names in its message for each replaced function. */
const SYSCALLS: Record<FsFunctionName, string> = {
  readdir: 'scandir',
  stat: 'stat',
  lstat: 'lstat',
  open: 'open',
  realpath: 'realpath',
  readFile: 'open',
};

/** The callback API's functions the listing calls (`src/io/callback-fs.ts`), refused as their promise twins. */
const CALLBACK_FUNCTIONS = ['readdir', 'stat', 'lstat', 'open'] as const;
type CallbackFunctionName = (typeof CALLBACK_FUNCTIONS)[number];

/**
 * Unreadable paths for a process that permission bits do not stop (see the module comment). Without any
 * denied path nothing is replaced; {@link restore} puts the original functions back.
 */
export class AccessDenial {
  readonly #directories: string[] = [];
  readonly #files: string[] = [];
  readonly #originals = new Map<FsFunctionName, unknown>();
  /** The callback API's functions replaced beside the promise API's (the listing's hot path uses those). */
  readonly #callbackOriginals = new Map<CallbackFunctionName, unknown>();

  /** Makes `dir` behave like a directory with mode 000. */
  denyDirectory(dir: string): void {
    this.#directories.push(dir);
    this.#install();
  }

  /** Makes `file` behave like a file with mode 000. */
  denyFile(file: string): void {
    this.#files.push(file);
    this.#install();
  }

  /** What the kernel answers a non-root process for `fn(path)`, or `undefined` when it would let it through. */
  #refusal(fn: FsFunctionName, path: unknown): Error | undefined {
    if (typeof path !== 'string') return undefined;
    const beneath = this.#directories.some((dir) => path.startsWith(`${dir}/`));
    const opensDirectory = (fn === 'readdir' || fn === 'open' || fn === 'readFile') && this.#directories.includes(path);
    const opensFile = (fn === 'open' || fn === 'readFile') && this.#files.includes(path);
    if (beneath || opensDirectory || opensFile) return systemError('EACCES', -13, 'permission denied', SYSCALLS[fn], path);
    return undefined;
  }

  #install(): void {
    if (this.#originals.size > 0) return;
    const target = fsp as unknown as Record<FsFunctionName, (...args: unknown[]) => Promise<unknown>>;
    for (const fn of Object.keys(SYSCALLS) as FsFunctionName[]) {
      const original = target[fn];
      this.#originals.set(fn, original);
      target[fn] = async (...args: unknown[]) => {
        const refusal = this.#refusal(fn, args[0]);
        if (refusal !== undefined) throw refusal;
        return original.apply(fsp, args);
      };
    }
    const callbacks = fs as unknown as Record<CallbackFunctionName, (...args: unknown[]) => void>;
    for (const fn of CALLBACK_FUNCTIONS) {
      const original = callbacks[fn];
      this.#callbackOriginals.set(fn, original);
      callbacks[fn] = (...args: unknown[]) => {
        const refusal = this.#refusal(fn, args[0]);
        const callback = args.at(-1);
        if (refusal !== undefined && typeof callback === 'function') {
          process.nextTick(callback as (error: Error) => void, refusal);
          return;
        }
        original.apply(fs, args);
      };
    }
    syncBuiltinESMExports();
  }

  /** Puts the original functions back. */
  restore(): void {
    if (this.#originals.size === 0) return;
    const target = fsp as unknown as Record<string, unknown>;
    for (const [fn, original] of this.#originals) target[fn] = original;
    this.#originals.clear();
    const callbacks = fs as unknown as Record<string, unknown>;
    for (const [fn, original] of this.#callbackOriginals) callbacks[fn] = original;
    this.#callbackOriginals.clear();
    syncBuiltinESMExports();
  }
}

/** One damaged copy of a fixture root. */
export interface DamagedRoot {
  readonly root: string;
  readonly compression: Compression;
  /** The artifact file name of this encoding. */
  readonly file: string;
  /** The artifact path of a session of the copy. */
  artifact(entry: { project: string; id: string }): string;
  /** The unreadable project directory. */
  readonly unreadableProject: string;
  /** Undoes the simulated or real permission changes and removes the copy. */
  cleanup(): Promise<void>;
}

/**
 * Opens a FIFO for writing and closes it again, which releases any reader blocked opening it. Only a regression
 * blocks on the FIFO; this lets such a test fail on its timeout instead of stalling the thread pool (and every
 * later file operation of the process) for good. Synchronous on purpose: the pool may be the thing stalled.
 */
export function releaseFifoReaders(path: string): void {
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // ENXIO: no reader is waiting (the normal case); ENOENT: the FIFO is gone. Either way nobody is blocked on it.
  }
}

/** Creates a unix socket at `path` (bound at a short temporary path first: socket paths are limited to ~107 bytes). */
async function makeSocket(path: string): Promise<void> {
  const short = join(tmpdir(), `sctx-${randomBytes(4).toString('hex')}.sock`);
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(short, () => resolve());
  });
  // The socket inode stays a socket under its new name; nothing needs to listen for the store to meet it.
  await rename(short, path);
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * A copy of the dsh-small root of `compression` with the damage of the module comment. `damage` picks which
 * parts to apply (all by default).
 */
export async function makeDamagedRoot(
  compression: Compression,
  damage: Partial<Record<keyof typeof DAMAGED | 'unreadableProject', boolean>> = {},
): Promise<DamagedRoot> {
  const want = (key: keyof typeof damage): boolean => damage[key] ?? true;
  const temp = await makeTempDir();
  const root = join(temp, 'sessions');
  await cp(compression === 'zstd' ? ZSTD_ROOT : RAW_ROOT, root, { recursive: true });
  // A title index that an earlier run may have left beside the fixtures is not part of the ground truth.
  await rm(join(root, '.sessionctx-title-index.v1'), { force: true });
  const file = compression === 'zstd' ? 'session.jsonl.zstd' : 'session.jsonl';
  const artifact = (entry: { project: string; id: string }): string => join(root, entry.project, entry.id, file);

  if (want('corruptHeader')) {
    const path = artifact(DAMAGED.corruptHeader);
    const bytes = await readFile(path);
    if (compression === 'zstd') {
      // The last byte of frame 0 is the top byte of its content checksum: the header frame fails validation.
      const [headerFrame] = await decodeFrames(bytes);
      const last = (headerFrame?.end as number) - 1;
      bytes[last] = (bytes[last] as number) ^ 0x01;
    } else {
      // `{` → `x`: the first line is no longer JSON.
      bytes[0] = 0x78;
    }
    await writeFile(path, bytes);
  }
  if (want('fifo')) {
    const path = artifact(DAMAGED.fifo);
    await rm(path);
    execFileSync('mkfifo', [path]);
  }
  if (want('directory')) {
    const path = artifact(DAMAGED.directory);
    await rm(path);
    await mkdir(path);
  }
  if (want('socket')) {
    const path = artifact(DAMAGED.socket);
    await rm(path);
    await makeSocket(path);
  }
  if (want('brokenLink')) {
    const path = artifact(DAMAGED.brokenLink);
    await rm(path);
    await symlink(join(root, 'no-such-target', file), path);
  }
  const unreadableProject = join(root, UNREADABLE_PROJECT);
  const denial = new AccessDenial();
  if (want('unreadableProject')) {
    if (RUNNING_AS_ROOT) denial.denyDirectory(unreadableProject);
    else await chmod(unreadableProject, 0o000);
  }
  return {
    root,
    compression,
    file,
    artifact,
    unreadableProject,
    async cleanup() {
      if (want('fifo')) releaseFifoReaders(artifact(DAMAGED.fifo));
      denial.restore();
      if (want('unreadableProject') && !RUNNING_AS_ROOT) await chmod(unreadableProject, 0o755);
      await removeTempDir(temp);
    },
  };
}
