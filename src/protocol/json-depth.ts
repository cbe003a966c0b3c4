/**
 * The nesting limit of SESSION-LOG.md §9.15a ("Nesting limit"): no stored record — an event line, a packed chunk
 * row or the header line — and no event a writer hands to the store or a live log may nest arrays and objects more
 * than {@link MAX_EVENT_DEPTH} levels inside its record. Every recursive step downstream (`JSON.stringify`,
 * `structuredClone`, `postMessage`, msgpackr) handles several times that on the default stack, so a log that
 * passes the boundary checks never meets a raw `RangeError`; one that does not fails with the one typed error
 * `SESSION_LOG_TOO_DEEP`.
 *
 * Every walk here uses an explicit stack, so the checker itself never overflows whatever it is given.
 */
import { SessionLogError } from './errors.js';

/**
 * The deepest nesting an event may carry: levels of arrays and objects inside its record (`data: {}` is one level,
 * `data: "x"` none, `data: {"a": [1]}` two). Chosen far above dsh's own logs (the fixture corpora peak at 7) and
 * well below the shallowest recursive step on Node's default 984 KiB main-thread stack (msgpackr's encoder, about
 * 1,300 levels; `structuredClone` about 2,400; see SESSION-LOG.md §9.15a for the measured figures).
 */
export const MAX_EVENT_DEPTH = 512;

/**
 * The nesting depth of a JSON-like value: 0 for a primitive or `null`, 1 + the deepest element or own enumerable
 * property value for an array or object. A value with a cycle has no finite depth: `Infinity`. Linear in the
 * number of reachable (value, path) pairs, with an explicit stack.
 */
export function jsonDepth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const ancestors = new Set<object>();
  // Entries are containers to enter, or `LEAVE` markers followed by the container being left.
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  let max = 0;
  while (stack.length > 0) {
    const current = stack.pop() as object;
    const depth = depths.pop() as number;
    if (depth < 0) {
      ancestors.delete(current);
      continue;
    }
    if (ancestors.has(current)) return Infinity;
    if (depth > max) max = depth;
    ancestors.add(current);
    stack.push(current);
    depths.push(-1);
    pushChildren(current, depth + 1, stack, depths);
  }
  return max;
}

/**
 * True when `value` nests deeper than `limit` levels (`jsonDepth(value) > limit`), decided without measuring the
 * whole depth: the walk stops at the first container beyond the limit, so it also ends on cyclic values (a cycle
 * nests without bound). No ancestor bookkeeping: the cost is one visit per reachable container.
 */
export function exceedsJsonDepth(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const current = stack.pop() as object;
    const depth = depths.pop() as number;
    if (depth > limit) return true;
    pushChildren(current, depth + 1, stack, depths);
  }
  return false;
}

/** Pushes the array or object children of `container` that are themselves containers, at `depth`. */
function pushChildren(container: object, depth: number, stack: unknown[], depths: number[]): void {
  if (Array.isArray(container)) {
    for (let index = 0; index < container.length; index++) {
      const child: unknown = container[index];
      if (typeof child === 'object' && child !== null) {
        stack.push(child);
        depths.push(depth);
      }
    }
    return;
  }
  for (const child of Object.values(container)) {
    if (typeof child === 'object' && child !== null) {
      stack.push(child);
      depths.push(depth);
    }
  }
}

/** The nesting depth of an event (or any stored record): that of its deepest field, `jsonDepth(record) − 1`. */
export function eventDepth(event: unknown): number {
  return Math.max(0, jsonDepth(event) - 1);
}

/** True when `event` nests deeper than {@link MAX_EVENT_DEPTH} (see {@link eventDepth}); stops early. */
export function exceedsEventDepth(event: unknown): boolean {
  return exceedsJsonDepth(event, MAX_EVENT_DEPTH + 1);
}

/**
 * A stored line shorter than this cannot nest beyond the limit: a record with an event depth above
 * {@link MAX_EVENT_DEPTH} has at least `MAX_EVENT_DEPTH + 2` opening and as many closing brackets. Readers skip
 * the walk for such lines (most lines of a log).
 */
export const MIN_TOO_DEEP_LINE_BYTES = 2 * (MAX_EVENT_DEPTH + 2);

/** Where a too-deep record was met, for the message; every field is optional. */
export interface DepthSite {
  /** The event's `type`, when it is a string. */
  readonly type?: string;
  /** The event's `seq` (or a packed row's `seq0`), when it is a number. */
  readonly seq?: number;
  /** The event line (numbered from 1 after the header, SESSION-LOG.md §9.11). */
  readonly line?: number;
  /** The artifact path. */
  readonly path?: string;
  /** What was refused, when it is not an event: `session header`. */
  readonly subject?: string;
}

/** The site fields a record names about itself: its `type` and `seq` (or `seq0`) when they have the right types. */
export function siteOf(record: unknown): { type?: string; seq?: number } {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return {};
  const fields = record as Record<string, unknown>;
  const type = fields['type'];
  const seq = typeof fields['seq'] === 'number' ? fields['seq'] : fields['seq0'];
  return { ...(typeof type === 'string' ? { type } : {}), ...(typeof seq === 'number' ? { seq } : {}) };
}

/**
 * The typed error of the nesting limit, `SESSION_LOG_TOO_DEEP`:
 * `session event "<type>" at seq <S> nests <D> levels of arrays and objects; the limit is 512 (event line <n> of "<path>")`,
 * each part present when known (`nests without end (a cycle)` for a cyclic value).
 */
export function tooDeepError(depth: number, site: DepthSite = {}, limit: number = MAX_EVENT_DEPTH): SessionLogError {
  const subject =
    site.subject ??
    `session event${site.type === undefined ? '' : ` ${JSON.stringify(site.type)}`}${site.seq === undefined ? '' : ` at seq ${site.seq}`}`;
  const nesting = Number.isFinite(depth) ? `nests ${depth} levels of arrays and objects` : 'nests without end (a cycle)';
  const where =
    site.line === undefined && site.path === undefined
      ? ''
      : ` (${site.line === undefined ? '' : `event line ${site.line}`}${site.line !== undefined && site.path !== undefined ? ' of ' : ''}${site.path === undefined ? '' : JSON.stringify(site.path)})`;
  return new SessionLogError('SESSION_LOG_TOO_DEEP', `${subject} ${nesting}; the limit is ${limit}${where}`);
}

/**
 * Throws {@link tooDeepError} when `event` nests deeper than {@link MAX_EVENT_DEPTH} levels inside its record. The
 * check every boundary runs: the store's write path, the readers (after `JSON.parse`, which is not recursive), the
 * live byte log, and — for a host — `Session.append` before the event joins the log.
 *
 * @throws SessionLogError `SESSION_LOG_TOO_DEEP`, naming the depth, the limit and what `site` and the event tell.
 */
export function assertEventDepth(event: unknown, site: DepthSite = {}): void {
  if (!exceedsEventDepth(event)) return;
  throw tooDeepError(eventDepth(event), { ...siteOf(event), ...site });
}

/**
 * Throws `SESSION_LOG_TOO_DEEP` when `value` itself nests deeper than `limit` levels (`jsonDepth(value) > limit`);
 * for a host that checks an event's `data` alone (`assertJsonDepth(data, MAX_EVENT_DEPTH, …)`).
 *
 * @throws SessionLogError `SESSION_LOG_TOO_DEEP`.
 */
export function assertJsonDepth(value: unknown, limit: number = MAX_EVENT_DEPTH, site: DepthSite = {}): void {
  if (!exceedsJsonDepth(value, limit)) return;
  throw tooDeepError(jsonDepth(value), site, limit);
}
