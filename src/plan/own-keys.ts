/**
 * Reading and writing a key a plan, a tool or a person chose — `__proto__` included — as data. Plain
 * `o[k] = v` with `k === '__proto__'` sets the object's prototype instead of a key (the key is lost),
 * and a walk that steps into `o.__proto__` reaches `Object.prototype`, which every object of the
 * isolate inherits from: one run could then change every other run's objects.
 */

/**
 * Sets `key` on `target` as an own, enumerable property, whatever the key.
 * @example setOwn(out, '__proto__', { x: 1 }); Object.keys(out) // ['__proto__']
 */
export function setOwn(target: object, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * `target[key]` when `target` holds it itself; undefined for what it inherits (`__proto__`,
 * `constructor`, `toString` on a plain object).
 * @example getOwn({}, '__proto__') // undefined
 */
export function getOwn(target: object, key: string | number): unknown {
  return Object.hasOwn(target, key) ? (target as Record<string | number, unknown>)[key] : undefined;
}
