/**
 * Deterministic ids and a scripted clock for a dsh host.
 *
 * dsh 0.1.0-rc.8 mints random ids in two ways: `globalThis.crypto.randomUUID()` (every message id, through
 * `createMessage` in `@deepseek-ai/dsh-llm`) and `randomUUID` imported from `node:crypto` (the SQLite query
 * engine's cursor instance, config-created agent ids). Event times and session `createdAt` come from `Date.now()`
 * (`@deepseek-ai/dsh-session`); nothing else in the mounted packages reads the wall clock. Both are replaced for
 * the lifetime of a host and restored when the last host is disposed.
 *
 * Hosts may overlap (two hosts in one test): the patched functions always serve the most recently installed
 * host, and each host's lease removes only itself.
 */
import { createHash } from 'node:crypto';
import { createRequire, syncBuiltinESMExports } from 'node:module';

const require = createRequire(import.meta.url);
/** The CommonJS face of `node:crypto`; assigning to it and syncing updates every ESM `import { randomUUID }`. */
const nodeCrypto = require('node:crypto') as { randomUUID: () => string };

/** Options for the scripted clock. */
export interface ClockOptions {
  /** Epoch milliseconds the clock starts at. Default {@link DEFAULT_CLOCK_START_MS}. */
  readonly startMs?: number;
  /**
   * Milliseconds added after every `Date.now()` read. Default 0: the clock only moves when the caller moves it
   * (`clock.advance()`, `clock.set()`, or `runTurn(..., { at })`), so the number of reads cannot change any time.
   */
  readonly stepMs?: number;
}

/** 2026-03-11T00:00:00.000Z: after every session in test/fixtures/dsh-small, so a new session is the newest. */
export const DEFAULT_CLOCK_START_MS = 1_773_187_200_000;

/** A scripted clock that replaces `Date.now()` while its host lives. */
export interface HostClock {
  /** The time `Date.now()` returns next (without stepping). */
  peek(): number;
  /** Read the clock the way `Date.now()` does (applies `stepMs`). */
  now(): number;
  /** Set the clock to `ms`. */
  set(ms: number): void;
  /** Move the clock forward by `ms` (which must be ≥ 0). */
  advance(ms: number): void;
}

/** A deterministic UUID v4 sequence derived from a seed string. */
export interface UuidSequence {
  /** The seed this sequence derives from. */
  readonly seed: string;
  /** How many ids have been minted so far. */
  readonly count: number;
  /** Mint the next id. */
  next(): string;
}

/**
 * Create a deterministic UUID v4 sequence: id n is sha256(`seed:n`) formatted as a version-4, variant-1 UUID.
 * @param seed - any string; equal seeds give equal sequences.
 * @returns the sequence.
 */
export function createUuidSequence(seed: string): UuidSequence {
  let count = 0;
  return {
    seed,
    get count() {
      return count;
    },
    next() {
      const hex = createHash('sha256').update(`${seed}:${count++}`).digest('hex');
      const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
    },
  };
}

/**
 * Create a scripted clock.
 * @param options - start time and optional per-read step.
 * @returns the clock.
 */
export function createClock(options: ClockOptions = {}): HostClock {
  let current = options.startMs ?? DEFAULT_CLOCK_START_MS;
  const step = options.stepMs ?? 0;
  if (!Number.isSafeInteger(current) || current < 0) throw new TypeError('clock startMs must be a non-negative safe integer');
  if (!Number.isSafeInteger(step) || step < 0) throw new TypeError('clock stepMs must be a non-negative safe integer');
  return {
    peek: () => current,
    now() {
      const value = current;
      current += step;
      return value;
    },
    set(ms) {
      if (!Number.isSafeInteger(ms) || ms < 0) throw new TypeError('clock time must be a non-negative safe integer');
      current = ms;
    },
    advance(ms) {
      if (!Number.isSafeInteger(ms) || ms < 0) throw new TypeError('clock advance must be a non-negative safe integer');
      current += ms;
    },
  };
}

interface Lease {
  readonly clock: HostClock;
  readonly uuids: UuidSequence;
}

interface Originals {
  readonly dateNow: typeof Date.now;
  readonly nodeRandomUUID: () => string;
  /** The own `randomUUID` descriptor on the `globalThis.crypto` object, if it had one (normally it lives on the prototype). */
  readonly webRandomUUID: PropertyDescriptor | undefined;
}

const leases: Lease[] = [];
let originals: Originals | undefined;

function active(): Lease {
  const lease = leases.at(-1);
  if (lease === undefined) throw new Error('dsh-host determinism: no active lease');
  return lease;
}

function install(): void {
  const webCrypto = globalThis.crypto;
  originals = {
    dateNow: Date.now,
    nodeRandomUUID: nodeCrypto.randomUUID,
    webRandomUUID: Object.getOwnPropertyDescriptor(webCrypto, 'randomUUID'),
  };
  const randomUUID = () => active().uuids.next() as `${string}-${string}-${string}-${string}-${string}`;
  Date.now = () => active().clock.now();
  Object.defineProperty(webCrypto, 'randomUUID', { value: randomUUID, configurable: true, writable: true, enumerable: false });
  nodeCrypto.randomUUID = randomUUID;
  syncBuiltinESMExports();
}

function uninstall(): void {
  if (originals === undefined) return;
  Date.now = originals.dateNow;
  const webCrypto = globalThis.crypto;
  if (originals.webRandomUUID === undefined) {
    delete (webCrypto as { randomUUID?: unknown }).randomUUID;
  } else {
    Object.defineProperty(webCrypto, 'randomUUID', originals.webRandomUUID);
  }
  nodeCrypto.randomUUID = originals.nodeRandomUUID;
  syncBuiltinESMExports();
  originals = undefined;
}

/**
 * Route `Date.now()`, `crypto.randomUUID()` and `node:crypto`'s `randomUUID()` to `clock` and `uuids` until the
 * returned release function runs.
 * @param clock - the clock to serve.
 * @param uuids - the id sequence to serve.
 * @returns an idempotent release function.
 */
export function leaseDeterminism(clock: HostClock, uuids: UuidSequence): () => void {
  const lease: Lease = { clock, uuids };
  if (leases.length === 0) install();
  leases.push(lease);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const index = leases.lastIndexOf(lease);
    if (index >= 0) leases.splice(index, 1);
    if (leases.length === 0) uninstall();
  };
}
