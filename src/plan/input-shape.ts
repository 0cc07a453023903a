/**
 * A run's input as the approval link's page may know it: the kind at each path, no value. An edit at
 * approval is held to the run's input (reference-types.ts), and that check reads only the kind a
 * `{{ input.… }}` finds (or that it finds nothing) — so a stand-in built from the shape, with the
 * same keys, the same array lengths and a placeholder of the same kind at each leaf, gets the same
 * findings as the input itself, while the link's holder is never sent what the input holds.
 */

/** A leaf's kind; objects and arrays keep their keys and lengths, each entry a shape again. */
export type InputLeaf = 'string' | 'number' | 'boolean' | 'null';
export type InputShape = InputLeaf | InputShape[] | { [key: string]: InputShape };

/**
 * Levels below which a shape says no more (the object or array there is kept, empty). A reference
 * that reads below it finds nothing in the stand-in, which the check lets pass: the API may still
 * refuse it, and the editor shows that refusal.
 */
export const MAX_SHAPE_DEPTH = 64;

/** What stands in for each kind of leaf. */
const PLACEHOLDER: Record<InputLeaf, unknown> = { string: '', number: 0, boolean: false, null: null };

/**
 * The kind at each path of a JSON value; undefined when it is not JSON (no run input has been).
 * @example inputShapeOf({ wait: '5s', ids: [1, 2] }) // { wait: 'string', ids: ['number', 'number'] }
 */
export function inputShapeOf(value: unknown, depth = 0): InputShape | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return typeof value as InputLeaf;
    case 'object':
      break;
    default:
      return undefined;
  }
  const deeper = depth < MAX_SHAPE_DEPTH;
  if (Array.isArray(value)) return deeper ? value.map((v) => inputShapeOf(v, depth + 1) ?? 'null') : [];
  if (!deeper) return {};
  // fromEntries: a key "__proto__" stays a key, as JSON.parse made it.
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => {
      const shape = inputShapeOf(v, depth + 1);
      return shape === undefined ? [] : [[k, shape]];
    }),
  );
}

/**
 * A value with `shape`'s keys, lengths and kinds, and a placeholder at each leaf ('' for a string, 0
 * for a number, false, null): what the validator is given for the input the shape describes.
 * @example standInOf({ wait: 'string', ids: ['number'] }) // { wait: '', ids: [0] }
 */
export function standInOf(shape: InputShape): unknown {
  if (typeof shape === 'string') return PLACEHOLDER[shape];
  if (Array.isArray(shape)) return shape.map(standInOf);
  return Object.fromEntries(Object.entries(shape).map(([k, s]) => [k, standInOf(s)]));
}

/**
 * Whether `v` is an input shape (as read back from a page: checked before it is used).
 * @example isInputShape({ a: ['string'] }) // true
 */
export function isInputShape(v: unknown, depth = 0): v is InputShape {
  if (typeof v === 'string') return Object.hasOwn(PLACEHOLDER, v);
  if (depth > MAX_SHAPE_DEPTH || v === null || typeof v !== 'object') return false;
  const entries = Array.isArray(v) ? v : Object.values(v);
  return entries.every((e) => isInputShape(e, depth + 1));
}
