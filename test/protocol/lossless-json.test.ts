import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { deepFreeze, freezeClone } from '../../src/protocol/deep-freeze.js';
import { isLosslessJson } from '../../src/protocol/lossless-json.js';

describe('isLosslessJson (§2.4 rule 2)', () => {
  it('accepts JSON values', () => {
    for (const value of [
      null,
      true,
      false,
      0,
      -1.5,
      1e300,
      '',
      'text',
      [],
      [1, 'a', null],
      {},
      { a: { b: [{ c: 1 }] } },
      Object.create(null),
    ]) {
      expect(isLosslessJson(value), JSON.stringify(value)).toBe(true);
    }
  });

  it('accepts a value shared twice without a cycle (JSON.stringify does too)', () => {
    const shared = { x: 1 };
    expect(isLosslessJson({ a: shared, b: [shared, shared] })).toBe(true);
  });

  it('accepts plain objects and arrays of another realm', () => {
    expect(isLosslessJson(runInNewContext('({ a: [1, { b: 2 }] })'))).toBe(true);
  });

  it('rejects undefined anywhere, BigInt, functions, symbols', () => {
    for (const value of [undefined, { a: undefined }, [undefined], 1n, { n: 1n }, () => 1, Symbol('s'), { s: Symbol('s') }]) {
      expect(isLosslessJson(value)).toBe(false);
    }
  });

  it('rejects -0, NaN and infinities at any depth', () => {
    for (const value of [-0, NaN, Infinity, -Infinity, { a: [1, -0] }, [NaN]]) {
      expect(isLosslessJson(value)).toBe(false);
    }
  });

  it('rejects cycles', () => {
    const object: Record<string, unknown> = {};
    object['self'] = object;
    const array: unknown[] = [];
    array.push([array]);
    expect(isLosslessJson(object)).toBe(false);
    expect(isLosslessJson(array)).toBe(false);
  });

  it('rejects sparse arrays and arrays with extra properties', () => {
    const holes: unknown[] = [1, 2];
    holes.length = 3;
    const extra = Object.assign([1], { tag: 'x' });
    expect(isLosslessJson(holes)).toBe(false);
    expect(isLosslessJson([1, , 3])).toBe(false);
    expect(isLosslessJson(extra)).toBe(false);
  });

  it('rejects exotic objects, symbol keys and non-enumerable keys', () => {
    class Point {
      x = 1;
    }
    class List extends Array<number> {}
    const hidden = Object.defineProperty({}, 'h', { value: 1, enumerable: false });
    for (const value of [
      new Map(),
      new Set(),
      new Date(0),
      new Point(),
      List.from([1]),
      new Uint8Array(2),
      new String('s'),
      /x/,
      { [Symbol('k')]: 1 },
      hidden,
      Object.create({ inherited: 1 }),
    ]) {
      expect(isLosslessJson(value)).toBe(false);
    }
  });

  it('handles deep nesting without overflowing the stack', () => {
    let deep: unknown = 0;
    for (let depth = 0; depth < 100_000; depth++) deep = [deep];
    expect(isLosslessJson(deep)).toBe(true);
  });
});

describe('deepFreeze / freezeClone', () => {
  it('deepFreeze freezes every reachable object and returns the same value', () => {
    const value = { a: [{ b: { c: 1 } }], d: 'x' };
    expect(deepFreeze(value)).toBe(value);
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.a)).toBe(true);
    expect(Object.isFrozen(value.a[0]!.b)).toBe(true);
    expect(() => {
      (value.a[0]!.b as { c: number }).c = 2;
    }).toThrow(TypeError);
  });

  it('deepFreeze descends into already-frozen parents and survives cycles', () => {
    const inner = { n: 1 };
    const outer = Object.freeze({ inner });
    deepFreeze(outer);
    expect(Object.isFrozen(inner)).toBe(true);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(deepFreeze(cyclic)).toBe(cyclic);
    expect(deepFreeze(5)).toBe(5);
    expect(deepFreeze(null)).toBe(null);
  });

  it('freezeClone clones (key order kept) and freezes the clone only', () => {
    const original = { z: 1, a: { m: [1, 2] } };
    const frozen = freezeClone(original);
    expect(frozen).not.toBe(original);
    expect(Object.keys(frozen)).toEqual(['z', 'a']);
    expect(frozen).toEqual(original);
    expect(Object.isFrozen(frozen.a.m)).toBe(true);
    expect(Object.isFrozen(original)).toBe(false);
    original.a.m.push(3);
    expect(frozen.a.m).toEqual([1, 2]);
  });
});
