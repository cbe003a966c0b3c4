/**
 * The storage-record codec of event lines (SESSION-LOG.md §9.7): every line after the header is either
 * one event, stored verbatim, or a *packed chunk row* holding a run of ≥ 3 consecutive stream deltas of
 * one content block. Decoding expands rows back into the exact original events; encoding packs runs when
 * the writer asks for it.
 */
import { SessionLogError } from './errors.js';
import type { SessionEvent } from './events.js';
import { isObjectLike } from './record-guard.js';
import { assertNever } from './assert-never.js';

/** The three row tags and the chunk type each one expands to. */
const ROW_CHUNK_TYPES = {
  'text-chunks': 'text-delta',
  'reasoning-chunks': 'reasoning-delta',
  'tool-call-chunks': 'tool-call-delta',
} as const;

/** The `type` of a packed chunk row. */
export type ChunkRowTag = keyof typeof ROW_CHUNK_TYPES;

/** The stream-delta kinds that pack into rows. */
type DeltaKind = (typeof ROW_CHUNK_TYPES)[ChunkRowTag];

/** The row tag that stores runs of each delta kind. */
const ROW_TAG_OF: { readonly [K in DeltaKind]: ChunkRowTag } = {
  'text-delta': 'text-chunks',
  'reasoning-delta': 'reasoning-chunks',
  'tool-call-delta': 'tool-call-chunks',
};

/** Shortest run that is packed into a row (shorter runs are written verbatim). */
const MIN_PACKED_RUN = 3;

/** True when `value` has exactly these own enumerable keys, in any order. */
function hasExactKeys(value: object, keys: readonly string[]): boolean {
  return Object.keys(value).length === keys.length && keys.every((key) => Object.hasOwn(value, key));
}

function isChunkRowTag(value: unknown): value is ChunkRowTag {
  return value === 'text-chunks' || value === 'reasoning-chunks' || value === 'tool-call-chunks';
}

/** Throws `malformed <tag> storage row: <why>`. */
function malformedRow(tag: ChunkRowTag, why: string): never {
  throw new SessionLogError('SESSION_LOG_CORRUPT', `malformed ${tag} storage row: ${why}`);
}

/** A row that passed validation; its members are `payload`, its gaps `dt`. */
interface ValidatedRow {
  readonly tag: ChunkRowTag;
  readonly seq0: number;
  readonly time0: number;
  readonly data: Record<string, unknown>;
  readonly payload: readonly string[];
  readonly dt: readonly number[];
}

/** Checks the shared fields and the member arrays of a row's data (the tail of §9.7 step 2). */
function validateMembers(
  tag: ChunkRowTag,
  data: Record<string, unknown>,
  payloadKey: 'texts' | 'args',
): { payload: string[]; dt: number[] } {
  if (typeof data['turn'] !== 'number' || typeof data['step'] !== 'number' || typeof data['index'] !== 'number') {
    malformedRow(tag, 'turn/step/index must be numbers');
  }
  const payload = data[payloadKey];
  if (!Array.isArray(payload) || payload.length === 0 || payload.some((member) => typeof member !== 'string')) {
    malformedRow(tag, `${payloadKey} must be a non-empty string array`);
  }
  const dt = data['dt'];
  if (!Array.isArray(dt) || dt.some((gap) => !Number.isSafeInteger(gap))) {
    malformedRow(tag, 'dt must be an array of safe integers');
  }
  if (dt.length !== payload.length - 1) {
    malformedRow(tag, `dt length ${dt.length} does not match ${payload.length} members`);
  }
  return { payload: payload as string[], dt: dt as number[] };
}

/** Validates a row-tagged value in the order of SESSION-LOG.md §9.7 step 2; the first violation throws. */
function validateRow(value: Record<string, unknown>, tag: ChunkRowTag): ValidatedRow {
  if (!hasExactKeys(value, ['type', 'seq0', 'time0', 'data'])) {
    malformedRow(tag, 'envelope must be exactly {type, seq0, time0, data}');
  }
  const seq0 = value['seq0'];
  if (!Number.isSafeInteger(seq0) || (seq0 as number) < 0) malformedRow(tag, 'seq0 must be a non-negative safe integer');
  const time0 = value['time0'];
  if (!Number.isSafeInteger(time0)) malformedRow(tag, 'time0 must be a safe integer');
  const data = value['data'];
  if (!isObjectLike(data)) malformedRow(tag, 'data must be an object');
  let members: { payload: string[]; dt: number[] };
  if (tag === 'tool-call-chunks') {
    const withName = hasExactKeys(data, ['turn', 'step', 'index', 'id', 'name', 'dt', 'args']);
    if (!withName && !hasExactKeys(data, ['turn', 'step', 'index', 'id', 'dt', 'args'])) {
      malformedRow(tag, 'data must be exactly {turn, step, index, id, name?, dt, args}');
    }
    if (typeof data['id'] !== 'string' || (withName && typeof data['name'] !== 'string')) {
      malformedRow(tag, 'id (and name when present) must be strings');
    }
    members = validateMembers(tag, data, 'args');
  } else {
    if (!hasExactKeys(data, ['turn', 'step', 'index', 'dt', 'texts'])) {
      malformedRow(tag, 'data must be exactly {turn, step, index, dt, texts}');
    }
    members = validateMembers(tag, data, 'texts');
  }
  // Outside the safe range float addition rounds, so a member would silently get another seq or time
  // than the writer recorded; within it every step is exact, so checking each running value suffices.
  if (!Number.isSafeInteger((seq0 as number) + members.payload.length - 1)) {
    malformedRow(tag, 'member seqs must stay safe integers');
  }
  let time = time0 as number;
  for (const gap of members.dt) {
    time += gap;
    if (!Number.isSafeInteger(time)) malformedRow(tag, 'member times must stay safe integers');
  }
  return { tag, seq0: seq0 as number, time0: time0 as number, data, payload: members.payload, dt: members.dt };
}

/** Builds the `data.chunk` of member `member` of a validated row. */
function memberChunk(row: ValidatedRow, member: string): Record<string, unknown> {
  const index = row.data['index'];
  switch (row.tag) {
    case 'text-chunks':
      return { type: 'text-delta', index, text: member };
    case 'reasoning-chunks':
      return { type: 'reasoning-delta', index, text: member };
    case 'tool-call-chunks':
      return Object.hasOwn(row.data, 'name')
        ? { type: 'tool-call-delta', index, id: row.data['id'], name: row.data['name'], argumentsDelta: member }
        : { type: 'tool-call-delta', index, id: row.data['id'], argumentsDelta: member };
    default:
      assertNever(row.tag, 'unknown chunk row tag');
  }
}

/** Expands a validated row into its member events (SESSION-LOG.md §9.7 step 3). */
function expandRow(row: ValidatedRow): SessionEvent[] {
  const turn = row.data['turn'];
  const step = row.data['step'];
  const events: SessionEvent[] = [];
  let time = row.time0;
  for (let k = 0; k < row.payload.length; k++) {
    if (k > 0) time += row.dt[k - 1] as number;
    events.push({
      type: 'assistant/chunk',
      seq: row.seq0 + k,
      time,
      data: { turn, step, chunk: memberChunk(row, row.payload[k] as string) },
    });
  }
  return events;
}

/**
 * Decodes one parsed event line into the stored events it holds (SESSION-LOG.md §9.7). A value that is
 * not a non-null object, or whose `type` is not a row tag, is returned as the single event it is,
 * **unvalidated** (arrays and `null` included; the scanner and later stages judge them). A row-tagged
 * value is validated and expanded.
 *
 * @throws SessionLogError `SESSION_LOG_CORRUPT`, `malformed <tag> storage row: <why>`.
 */
export function decodeStorageRecord(value: unknown): unknown[] {
  if (!isObjectLike(value)) return [value];
  const tag = value['type'];
  if (!isChunkRowTag(tag)) return [value];
  return expandRow(validateRow(value, tag));
}

/** A packable delta event, narrowed by {@link classifyDelta}. */
interface DeltaEvent {
  readonly seq: number;
  readonly time: number;
  readonly data: { readonly turn: number; readonly step: number; readonly chunk: DeltaChunk };
}

/** The chunk of a packable delta event. */
interface DeltaChunk {
  readonly type: DeltaKind;
  readonly index: number;
  readonly text?: string;
  readonly id?: string;
  readonly name?: string;
  readonly argumentsDelta?: string;
}

/** The delta kind of a packable event (SESSION-LOG.md §9.7 "Encoding"), or undefined when it is written verbatim. */
function classifyDelta(event: unknown): DeltaKind | undefined {
  if (!isObjectLike(event) || event['type'] !== 'assistant/chunk') return undefined;
  if (!hasExactKeys(event, ['type', 'seq', 'time', 'data'])) return undefined;
  const seq = event['seq'];
  if (!Number.isSafeInteger(seq) || (seq as number) < 0 || !Number.isSafeInteger(event['time'])) return undefined;
  const data = event['data'];
  if (!isObjectLike(data) || !hasExactKeys(data, ['turn', 'step', 'chunk'])) return undefined;
  if (typeof data['turn'] !== 'number' || typeof data['step'] !== 'number') return undefined;
  const chunk = data['chunk'];
  if (!isObjectLike(chunk) || typeof chunk['index'] !== 'number') return undefined;
  switch (chunk['type']) {
    case 'text-delta':
    case 'reasoning-delta':
      return hasExactKeys(chunk, ['type', 'index', 'text']) && typeof chunk['text'] === 'string' ? chunk['type'] : undefined;
    case 'tool-call-delta': {
      const shaped =
        hasExactKeys(chunk, ['type', 'index', 'id', 'argumentsDelta']) ||
        (hasExactKeys(chunk, ['type', 'index', 'id', 'name', 'argumentsDelta']) && typeof chunk['name'] === 'string');
      return shaped && typeof chunk['id'] === 'string' && typeof chunk['argumentsDelta'] === 'string' ? 'tool-call-delta' : undefined;
    }
    default:
      // Block start/end, usage, finish and any future chunk variant stay one event per line.
      return undefined;
  }
}

/** True when `next` continues the run that ends with `previous` (both already classified as `kind`). */
function continuesRun(previous: DeltaEvent, next: DeltaEvent, kind: DeltaKind): boolean {
  if (next.seq !== previous.seq + 1) return false;
  if (!Number.isSafeInteger(next.time - previous.time)) return false;
  if (next.data.turn !== previous.data.turn || next.data.step !== previous.data.step) return false;
  if (next.data.chunk.index !== previous.data.chunk.index) return false;
  if (kind !== 'tool-call-delta') return true;
  const a = previous.data.chunk;
  const b = next.data.chunk;
  return a.id === b.id && Object.hasOwn(a, 'name') === Object.hasOwn(b, 'name') && a.name === b.name;
}

/** Builds the row of a run, keys in the writer order of SESSION-LOG.md §9.7. */
function buildRow(kind: DeltaKind, run: readonly DeltaEvent[]): Record<string, unknown> {
  const first = run[0] as DeltaEvent;
  const dt = run.slice(1).map((event, i) => event.time - (run[i] as DeltaEvent).time);
  const head = { turn: first.data.turn, step: first.data.step, index: first.data.chunk.index, dt };
  const data =
    kind === 'tool-call-delta'
      ? {
          ...head,
          id: first.data.chunk.id,
          ...(Object.hasOwn(first.data.chunk, 'name') ? { name: first.data.chunk.name } : {}),
          args: run.map((event) => event.data.chunk.argumentsDelta),
        }
      : { ...head, texts: run.map((event) => event.data.chunk.text) };
  return { type: ROW_TAG_OF[kind], seq0: first.seq, time0: first.time, data };
}

/**
 * The storage records of one append batch: runs of ≥ 3 packable deltas become rows, everything else is
 * kept as is, in order.
 */
export function packChunkRuns(events: readonly SessionEvent[]): unknown[] {
  const out: unknown[] = [];
  let kind: DeltaKind | undefined;
  let run: DeltaEvent[] = [];
  const flush = (): void => {
    if (kind !== undefined && run.length >= MIN_PACKED_RUN) out.push(buildRow(kind, run));
    else out.push(...run);
    kind = undefined;
    run = [];
  };
  for (const event of events) {
    const next = classifyDelta(event);
    if (next === undefined) {
      flush();
      out.push(event);
      continue;
    }
    const delta = event as unknown as DeltaEvent;
    const last = run[run.length - 1];
    if (next === kind && last !== undefined && continuesRun(last, delta, next)) {
      run.push(delta);
      continue;
    }
    flush();
    kind = next;
    run = [delta];
  }
  flush();
  return out;
}

/**
 * The text of one durable append batch (SESSION-LOG.md §9.8, §9.16 rule 3): one storage record per line,
 * each followed by LF; with `packChunks`, delta runs are packed first (§9.7). An empty batch is the empty
 * string.
 *
 * Every event is serialised with `JSON.stringify` exactly as given, so its own key order is the line's key
 * order. Writers therefore build events in the order of SESSION-LOG.md §2.2 (`type, seq, time, data`, then
 * `sourceEventSeqs?`, then `surfaceOp?`) — except synthetic crash closers, which dsh builds with
 * `surfaceOp` before `sourceEventSeqs` (§9.12); rebuilding the keys here would break that exception.
 */
export function encodeStorageBatch(events: readonly SessionEvent[], packChunks: boolean): string {
  const records: readonly unknown[] = packChunks ? packChunkRuns(events) : events;
  let text = '';
  for (const record of records) text += JSON.stringify(record) + '\n';
  return text;
}
