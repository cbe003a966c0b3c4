/**
 * XXH64 with seed 0, the Zstandard content checksum (RFC 8878 §3.1.1; SESSION-LOG.md §9.17).
 *
 * 64-bit lanes are held as two unsigned 32-bit halves so that hashing megabytes never allocates BigInts;
 * the arithmetic helpers write their result into `rh`/`rl` instead of returning objects for the same
 * reason. Only the final value is turned into a bigint.
 */

// The five XXH64 primes as [high, low] 32-bit halves.
const P1H = 0x9e3779b1,
  P1L = 0x85ebca87;
const P2H = 0xc2b2ae3d,
  P2L = 0x27d4eb4f;
const P3H = 0x165667b1,
  P3L = 0x9e3779f9;
const P4H = 0x85ebca77,
  P4L = 0xc2b2ae63;
const P5H = 0x27d4eb2f,
  P5L = 0x165667c5;

const TWO_POW_32 = 0x1_0000_0000;

/** Result registers of the 64-bit helpers (high and low halves, unsigned). */
let rh = 0;
let rl = 0;

/** (ah:al) + (bh:bl) mod 2^64 → rh:rl. */
function add64(ah: number, al: number, bh: number, bl: number): void {
  const low = al + bl;
  rl = low >>> 0;
  rh = (ah + bh + (low >= TWO_POW_32 ? 1 : 0)) >>> 0;
}

/** (ah:al) × (bh:bl) mod 2^64 → rh:rl. */
function mul64(ah: number, al: number, bh: number, bl: number): void {
  // al × bl needs all 64 bits; split into 16-bit limbs so every partial product is exact in a double.
  const a0 = al & 0xffff,
    a1 = al >>> 16;
  const b0 = bl & 0xffff,
    b1 = bl >>> 16;
  const middle = a0 * b1 + a1 * b0;
  const low = a0 * b0 + (middle % 0x10000) * 0x10000;
  const carry = Math.floor(low / TWO_POW_32);
  const high = a1 * b1 + Math.floor(middle / 0x10000) + carry;
  rl = low >>> 0;
  // The cross terms only reach the high half, where their low 32 bits are all that survive.
  rh = (high + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
}

/** rotl64(h:l, r) for 0 < r < 32 → rh:rl. */
function rotl64(h: number, l: number, r: number): void {
  rh = ((h << r) | (l >>> (32 - r))) >>> 0;
  rl = ((l << r) | (h >>> (32 - r))) >>> 0;
}

/** Little-endian u32 at `i`. */
function readU32(input: Uint8Array, i: number): number {
  return (
    ((input[i] as number) | ((input[i + 1] as number) << 8) | ((input[i + 2] as number) << 16) | ((input[i + 3] as number) << 24)) >>> 0
  );
}

/** round(acc, lane) = rotl(acc + lane × P2, 31) × P1 → rh:rl. */
function round(acch: number, accl: number, laneh: number, lanel: number): void {
  mul64(laneh, lanel, P2H, P2L);
  add64(acch, accl, rh, rl);
  rotl64(rh, rl, 31);
  mul64(rh, rl, P1H, P1L);
}

/** mergeRound(acc, v) = (acc ^ round(0, v)) × P1 + P4 → rh:rl. */
function mergeRound(acch: number, accl: number, vh: number, vl: number): void {
  round(0, 0, vh, vl);
  mul64((acch ^ rh) >>> 0, (accl ^ rl) >>> 0, P1H, P1L);
  add64(rh, rl, P4H, P4L);
}

/** XXH64(input, seed 0) as its high and low 32-bit halves. */
function xxh64Halves(input: Uint8Array): { high: number; low: number } {
  const length = input.length;
  let i = 0;
  let hh: number, hl: number;
  if (length >= 32) {
    // Seed 0: v1 = P1 + P2, v2 = P2, v3 = 0, v4 = -P1.
    add64(P1H, P1L, P2H, P2L);
    let v1h = rh,
      v1l = rl;
    let v2h = P2H,
      v2l = P2L;
    let v3h = 0,
      v3l = 0;
    add64(~P1H >>> 0, ~P1L >>> 0, 0, 1);
    let v4h = rh,
      v4l = rl;
    const limit = length - 32;
    while (i <= limit) {
      round(v1h, v1l, readU32(input, i + 4), readU32(input, i));
      v1h = rh;
      v1l = rl;
      round(v2h, v2l, readU32(input, i + 12), readU32(input, i + 8));
      v2h = rh;
      v2l = rl;
      round(v3h, v3l, readU32(input, i + 20), readU32(input, i + 16));
      v3h = rh;
      v3l = rl;
      round(v4h, v4l, readU32(input, i + 28), readU32(input, i + 24));
      v4h = rh;
      v4l = rl;
      i += 32;
    }
    rotl64(v1h, v1l, 1);
    hh = rh;
    hl = rl;
    rotl64(v2h, v2l, 7);
    add64(hh, hl, rh, rl);
    hh = rh;
    hl = rl;
    rotl64(v3h, v3l, 12);
    add64(hh, hl, rh, rl);
    hh = rh;
    hl = rl;
    rotl64(v4h, v4l, 18);
    add64(hh, hl, rh, rl);
    hh = rh;
    hl = rl;
    mergeRound(hh, hl, v1h, v1l);
    hh = rh;
    hl = rl;
    mergeRound(hh, hl, v2h, v2l);
    hh = rh;
    hl = rl;
    mergeRound(hh, hl, v3h, v3l);
    hh = rh;
    hl = rl;
    mergeRound(hh, hl, v4h, v4l);
    hh = rh;
    hl = rl;
  } else {
    hh = P5H;
    hl = P5L;
  }
  // h += length (as a 64-bit value; lengths stay below 2^53).
  add64(hh, hl, Math.floor(length / TWO_POW_32) >>> 0, length >>> 0);
  hh = rh;
  hl = rl;
  while (i + 8 <= length) {
    round(0, 0, readU32(input, i + 4), readU32(input, i));
    hh = (hh ^ rh) >>> 0;
    hl = (hl ^ rl) >>> 0;
    rotl64(hh, hl, 27);
    mul64(rh, rl, P1H, P1L);
    add64(rh, rl, P4H, P4L);
    hh = rh;
    hl = rl;
    i += 8;
  }
  if (i + 4 <= length) {
    mul64(0, readU32(input, i), P1H, P1L);
    hh = (hh ^ rh) >>> 0;
    hl = (hl ^ rl) >>> 0;
    rotl64(hh, hl, 23);
    mul64(rh, rl, P2H, P2L);
    add64(rh, rl, P3H, P3L);
    hh = rh;
    hl = rl;
    i += 4;
  }
  while (i < length) {
    mul64(0, input[i] as number, P5H, P5L);
    hh = (hh ^ rh) >>> 0;
    hl = (hl ^ rl) >>> 0;
    rotl64(hh, hl, 11);
    mul64(rh, rl, P1H, P1L);
    hh = rh;
    hl = rl;
    i += 1;
  }
  // Avalanche: h ^= h >> 33; h *= P2; h ^= h >> 29; h *= P3; h ^= h >> 32.
  hl = (hl ^ (hh >>> 1)) >>> 0;
  mul64(hh, hl, P2H, P2L);
  hh = rh;
  hl = rl;
  hl = (hl ^ ((hl >>> 29) | (hh << 3))) >>> 0;
  hh = (hh ^ (hh >>> 29)) >>> 0;
  mul64(hh, hl, P3H, P3L);
  hh = rh;
  hl = rl;
  hl = (hl ^ hh) >>> 0;
  return { high: hh, low: hl };
}

/** XXH64 of `input` with seed 0. */
export function xxh64(input: Uint8Array): bigint {
  const { high, low } = xxh64Halves(input);
  return (BigInt(high) << 32n) | BigInt(low);
}

/** The low 32 bits of XXH64(`input`, 0): the value a Zstandard frame stores as its content checksum. */
export function xxh64Low32(input: Uint8Array): number {
  return xxh64Halves(input).low;
}
