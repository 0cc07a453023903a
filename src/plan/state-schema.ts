/**
 * TEA's `state_schema:` — state keys and their Python types (`str`, `int`, `float`, `bool`, `list`,
 * `dict`, `any`; also `string`, `integer`, `number`, `boolean`, `array`, `object`, and `Optional[...]`
 * / `x | None`). A value of the wrong type is a finding; keys the schema does not name, and types it
 * does not know, pass. Checked on a run's input and on every result merged into the state. Pure.
 */

export type SchemaFinding = { key: string; expected: string; got: string; message: string };

const CHECKS: Record<string, (v: unknown) => boolean> = {
  str: (v) => typeof v === 'string',
  string: (v) => typeof v === 'string',
  int: (v) => typeof v === 'number' && Number.isInteger(v),
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  float: (v) => typeof v === 'number',
  number: (v) => typeof v === 'number',
  bool: (v) => typeof v === 'boolean',
  boolean: (v) => typeof v === 'boolean',
  list: Array.isArray,
  array: Array.isArray,
  dict: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
  object: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
};

/**
 * The values in `values` that do not fit `schema`.
 * @example checkStateSchema({ topic: 'str' }, { topic: 3 }) // [{ key: 'topic', expected: 'str', got: 'a number', … }]
 */
export function checkStateSchema(
  schema: Record<string, unknown>,
  values: Record<string, unknown>,
): SchemaFinding[] {
  const out: SchemaFinding[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (!Object.hasOwn(schema, key)) continue;
    const declared = schema[key];
    if (typeof declared !== 'string') continue;
    let type = declared.trim();
    const optional = /^Optional\[(.+)\]$/.exec(type) ?? /^(.+?)\s*\|\s*None$/.exec(type);
    if (optional) {
      if (value === null) continue;
      type = optional[1]!.trim();
    }
    const check = CHECKS[type];
    if (!check || check(value)) continue;
    const got = kind(value);
    out.push({
      key,
      expected: declared,
      got,
      message: `state.${key} should be ${declared} (state_schema) but is ${got}`,
    });
  }
  return out;
}

function kind(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a dict';
  return `a ${typeof v}`;
}
