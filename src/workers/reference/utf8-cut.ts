/**
 * The head/tail candidates of one text (SESSION-REFERENCE.md §10.2), probed in O(1) each after one
 * linear preparation. Retention binary-searches over the retained byte count `r`; building every
 * candidate string to measure it would make each round linear in the text per probe, so the raw
 * and tag-safe JSON sizes are read from the byte array and prefix sums instead, and only the chosen
 * candidate is ever decoded.
 */
import { ASCII_JSON_BYTES } from '../../protocol/tag-safe-json.js';

/** The literal omission notice of §10.2; the ellipses are U+2026. */
export function omissionNotice(omittedBytes: number): string {
  return `\n[\u2026 omitted ${omittedBytes} UTF-8 bytes \u2026]`;
}

/** `raw(notice(o)) − digits(o)`: LF, `[`, two ellipses of 3 bytes and the fixed words. */
const NOTICE_RAW_BYTES = 31;

/** `J(notice(o)) − digits(o)`: as {@link NOTICE_RAW_BYTES} but the LF costs 2 (`\n`). */
const NOTICE_JSON_BYTES = 32;

/** The two quotes around a JSON string. */
const JSON_QUOTES = 2;

/** Decimal digit count of a non-negative integer. */
export function decimalDigits(value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits += 1;
  return digits;
}

/** True for a UTF-8 continuation byte (`10xxxxxx`). */
function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/**
 * `ignoreBOM: true` keeps a leading U+FEFF of either decoded part; the default decoder would strip
 * it and make the kept text differ from the bytes that were counted.
 */
const DECODER = new TextDecoder('utf-8', { ignoreBOM: true });

const ENCODER = new TextEncoder();

/**
 * The candidates `candidate(r)`, `0 ≤ r < totalBytes`, of one original text. Every probe is O(1);
 * {@link Utf8Cut.materialize} is linear in the kept bytes.
 */
export interface Utf8Cut {
  /** `T`: the UTF-8 byte length of the original text (a lone surrogate encodes as `EF BF BD`). */
  readonly totalBytes: number;
  /** `raw(candidate(r))` = `P + (T − Q) + 31 + digits(o)`. */
  rawOf(r: number): number;
  /** `J(candidate(r))` = `2 + cost(B[0,P)) + cost(B[Q,T)) + 32 + digits(o)`. */
  jsonOf(r: number): number;
  /** `o` = `Q − P`, the bytes of the original that `candidate(r)` leaves out. */
  omittedOf(r: number): number;
  /** The candidate text: decode of `B[0,P)`, decode of `B[Q,T)`, then the notice of `o`. */
  materialize(r: number): string;
}

/**
 * Prepares the candidates of `text`: encodes it once, and builds the prefix sums of the per-byte
 * JSON cost. Cost sums fit a Uint32Array: a JS string has under 2^30 code units and each costs at
 * most 6 bytes. Probing `r` outside `0 ≤ r < T` throws a RangeError (no candidate exists there).
 */
export function createUtf8Cut(text: string): Utf8Cut {
  const bytes = ENCODER.encode(text);
  const total = bytes.length;
  const costPrefix = new Uint32Array(total + 1);
  let running = 0;
  for (let index = 0; index < total; index += 1) {
    const byte = bytes[index] as number;
    // Non-ASCII bytes cost 1 each: a non-ASCII code point serialises to its own UTF-8 bytes (§10.1).
    running += byte < 0x80 ? (ASCII_JSON_BYTES[byte] as number) : 1;
    costPrefix[index + 1] = running;
  }

  const checkedRetained = (r: number): number => {
    if (!Number.isSafeInteger(r) || r < 0 || r >= total) {
      throw new RangeError(`candidate retained byte count ${r} is outside 0..${total - 1}`);
    }
    return r;
  };
  /** P: the largest boundary ≤ ceil(r/2); a boundary is never more than 3 continuation bytes away. */
  const headEnd = (r: number): number => {
    let head = Math.ceil(r / 2);
    while (head > 0 && head < total && isContinuation(bytes[head] as number)) head -= 1;
    return head;
  };
  /** Q: the smallest boundary ≥ T − floor(r/2). */
  const tailStart = (r: number): number => {
    let tail = total - Math.floor(r / 2);
    while (tail < total && isContinuation(bytes[tail] as number)) tail += 1;
    return tail;
  };

  return {
    totalBytes: total,
    rawOf(r) {
      checkedRetained(r);
      const head = headEnd(r);
      const tail = tailStart(r);
      return head + (total - tail) + NOTICE_RAW_BYTES + decimalDigits(tail - head);
    },
    jsonOf(r) {
      checkedRetained(r);
      const head = headEnd(r);
      const tail = tailStart(r);
      const keptCost = (costPrefix[head] as number) + (running - (costPrefix[tail] as number));
      return JSON_QUOTES + keptCost + NOTICE_JSON_BYTES + decimalDigits(tail - head);
    },
    omittedOf(r) {
      checkedRetained(r);
      return tailStart(r) - headEnd(r);
    },
    materialize(r) {
      checkedRetained(r);
      const head = headEnd(r);
      const tail = tailStart(r);
      return DECODER.decode(bytes.subarray(0, head)) + DECODER.decode(bytes.subarray(tail, total)) + omissionNotice(tail - head);
    },
  };
}
