/**
 * Reproducible pseudo-random streams for tests (xorshift32): the same seed gives the same kill points,
 * mutations and noise on every run. Imports nothing, so child processes can use it without vitest.
 */

/**
 * A stream of uint32 values.
 * @param seed - any number; 0 is replaced by 1 (xorshift32 would stay at 0).
 */
export function xorshift32(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
}

/**
 * A stream of numbers in [0, 1).
 * @param seed - the stream's seed.
 */
export function seededUnit(seed: number): () => number {
  const next = xorshift32(seed);
  return () => next() / 2 ** 32;
}

/**
 * Deterministic base64 noise of `length` characters: hard to compress, for size-bound tests.
 * @param length - characters wanted.
 * @param seed - the noise's seed.
 */
export function noiseText(length: number, seed = 1): string {
  const next = xorshift32(seed);
  const bytes = new Uint8Array(Math.ceil((length * 3) / 4) + 3);
  for (let i = 0; i < bytes.length; i++) bytes[i] = next() & 0xff;
  return Buffer.from(bytes).toString('base64').slice(0, length);
}

/**
 * A stream of numbers in [0, 1) by mulberry32 (the generator of the search, fleet and title-index property tests).
 * @param seed - the stream's seed.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
