/**
 * The lossless-JSON test of SESSION-LOG.md §2.4 rule 2: a value that survives `JSON.stringify` →
 * `JSON.parse` unchanged, so that what a writer logs is exactly what every reader will see.
 */

/** True when `prototype` is an `Object.prototype`, from this realm or another one (a `vm` context). */
function isIntrinsicObjectPrototype(prototype: object): boolean {
  if (prototype === Object.prototype) return true;
  // Another realm's Object.prototype: no prototype of its own and a native `Object` constructor.
  if (Object.getPrototypeOf(prototype) !== null) return false;
  return hasNativeConstructor(prototype, 'Object');
}

/** True when `prototype` is an `Array.prototype`, from this realm or another one. */
function isIntrinsicArrayPrototype(prototype: object): boolean {
  if (prototype === Array.prototype) return true;
  if (!Array.isArray(prototype) || !hasNativeConstructor(prototype, 'Array')) return false;
  const parent: unknown = Object.getPrototypeOf(prototype);
  return typeof parent === 'object' && parent !== null && isIntrinsicObjectPrototype(parent);
}

/** True when `prototype.constructor` is the built-in function called `name` whose prototype is `prototype`. */
function hasNativeConstructor(prototype: object, name: string): boolean {
  const ctor: unknown = Object.getOwnPropertyDescriptor(prototype, 'constructor')?.value;
  if (typeof ctor !== 'function') return false;
  return (
    ctor.name === name && ctor.prototype === prototype && Function.prototype.toString.call(ctor) === `function ${name}() { [native code] }`
  );
}

/** A node still to visit, or the marker that its subtree is done (it stops being an ancestor). */
type WalkTask = { readonly visit: unknown } | { readonly leave: object };

/**
 * True when `value` is lossless JSON (SESSION-LOG.md §2.4 rule 2): built only from `null`, booleans, strings,
 * finite numbers other than `-0`, dense arrays with the array prototype and no extra properties, and plain
 * objects (prototype `Object.prototype` or `null`) whose own keys are all enumerable strings. `undefined`
 * anywhere, BigInt, functions, symbols, cycles and exotic objects (Map, Set, Date, class instances) are not.
 * A value referenced twice without forming a cycle is allowed, as `JSON.stringify` allows it.
 */
export function isLosslessJson(value: unknown): boolean {
  const ancestors = new Set<object>();
  const tasks: WalkTask[] = [{ visit: value }];
  for (let task = tasks.pop(); task !== undefined; task = tasks.pop()) {
    if ('leave' in task) {
      ancestors.delete(task.leave);
      continue;
    }
    const current = task.visit;
    switch (typeof current) {
      case 'string':
      case 'boolean':
        continue;
      case 'number':
        if (!Number.isFinite(current) || Object.is(current, -0)) return false;
        continue;
      case 'object':
        break;
      default:
        // undefined, bigint, function, symbol
        return false;
    }
    if (current === null) continue;
    if (ancestors.has(current)) return false;
    const prototype: unknown = Object.getPrototypeOf(current);
    if (Array.isArray(current)) {
      if (typeof prototype !== 'object' || prototype === null || !isIntrinsicArrayPrototype(prototype)) return false;
      // Own keys are the indexes plus `length`: fewer means holes, more means extra properties.
      if (Reflect.ownKeys(current).length !== current.length + 1) return false;
      ancestors.add(current);
      tasks.push({ leave: current });
      for (let index = current.length - 1; index >= 0; index--) {
        if (!Object.hasOwn(current, index)) return false;
        tasks.push({ visit: current[index] });
      }
      continue;
    }
    if (prototype !== null && (typeof prototype !== 'object' || !isIntrinsicObjectPrototype(prototype))) return false;
    const keys = Reflect.ownKeys(current);
    for (const key of keys) {
      if (typeof key !== 'string' || !Object.prototype.propertyIsEnumerable.call(current, key)) return false;
    }
    ancestors.add(current);
    tasks.push({ leave: current });
    const record = current as Record<string, unknown>;
    for (let index = keys.length - 1; index >= 0; index--) {
      tasks.push({ visit: record[keys[index] as string] });
    }
  }
  return true;
}
