import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { zodFromJsonSchema } from '../../src/mcp/json-schema';
import { unknownKeys } from '../../src/plan/parameter-keys';
import { oneStep } from './validation-helpers';

const search = z.object({
  query: z.string(),
  options: z.object({ max: z.number().int(), lang: z.string().optional() }).optional(),
  filters: z.array(z.object({ field: z.string(), value: z.string() })).default([]),
});

describe('a nested key a closed object does not take', () => {
  it('is invalid_parameters at its full path, with the likely key and what that object takes', () => {
    const r = oneStep(search, { query: 'q', options: { maxx: 3, max: 1 } });
    expect(r.valid).toBe(false);
    expect(r.errors).toEqual([
      {
        code: 'invalid_parameters',
        message:
          'Step "s": parameters.options.maxx: unknown key "maxx" (did you mean "max"?); parameters.options of tool team.tool takes max, lang',
        step_id: 's',
        path: ['parameters', 'options', 'maxx'],
      },
    ]);
  });

  it('is found in every item of an array of closed objects, each at its index', () => {
    const r = oneStep(search, {
      query: 'q',
      filters: [
        { field: 'a', value: 'x' },
        { feild: 'b', value: 'y' },
        { field: 'c', value: 'z', op: 'eq' },
      ],
    });
    expect(r.errors.map((e) => [e.path, e.message.includes('(did you mean "field"?)')])).toEqual([
      [['parameters', 'filters', 1, 'feild'], true],
      [['parameters', 'filters', 2, 'op'], false],
      // the required key the misspelt one left out
      [['parameters', 'filters', 1, 'field'], false],
    ]);
  });

  it('is reported once for a nested strict object (not again as zod’s unrecognized key)', () => {
    const strict = z.object({ options: z.strictObject({ max: z.number() }) });
    const r = oneStep(strict, { options: { max: 1, Max: 2 } });
    expect(r.errors.map((e) => e.path)).toEqual([['parameters', 'options', 'Max']]);
  });

  it('is allowed inside an open object, a record or a union, while a closed object under an open one is checked', () => {
    const open = z.object({
      meta: z.looseObject({ a: z.number() }),
      tags: z.record(z.string(), z.unknown()),
      either: z.union([z.object({ a: z.number() }), z.object({ b: z.number() })]),
      loose: z.looseObject({ inner: z.object({ x: z.number() }) }),
      byName: z.record(z.string(), z.object({ x: z.number() })),
    });
    const r = oneStep(open, {
      meta: { a: 1, extra: 1 },
      tags: { anything: 1 },
      either: { a: 1, c: 2 },
      loose: { inner: { x: 1, y: 2 }, more: 1 },
      byName: { k: { x: 1, z: 3 } },
    });
    expect(r.errors.map((e) => e.path)).toEqual([
      ['parameters', 'loose', 'inner', 'y'],
      ['parameters', 'byName', 'k', 'z'],
    ]);
  });

  it('is found under a nested JSON Schema object with additionalProperties: false (an MCP tool)', () => {
    const schema = zodFromJsonSchema({
      type: 'object',
      properties: {
        city: { type: 'string' },
        units: {
          type: 'object',
          properties: { temperature: { type: 'string' } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    });
    expect(
      oneStep(schema, { city: 'Oslo', units: { temprature: 'C' } }).errors.map((e) => e.message),
    ).toEqual([
      'Step "s": parameters.units.temprature: unknown key "temprature" (did you mean "temperature"?); parameters.units of tool team.tool takes temperature',
    ]);
  });

  it('counts the keys past the first ten of a step in one finding', () => {
    const items = Array.from({ length: 12 }, (_, k) => ({ field: 'f', value: 'v', [`x${k}`]: k }));
    const r = oneStep(search, { query: 'q', filters: items });
    expect(r.errors).toHaveLength(11);
    expect(r.errors[10]).toEqual({
      code: 'invalid_parameters',
      message: 'Step "s": parameters: 2 more unknown keys',
      step_id: 's',
      path: ['parameters'],
    });
  });
});

describe('unknownKeys', () => {
  it('walks a recursive (lazy) schema and stops at its depth bound, saying so', () => {
    type Tree = { name: string; children?: Tree[] };
    const tree: z.ZodType<Tree> = z.object({
      name: z.string(),
      get children() {
        return z.array(tree).optional();
      },
    });
    let value: Tree = { name: 'leaf', nmae: 'x' } as Tree;
    for (let d = 0; d < 100; d++) value = { name: `n${d}`, children: [value] };
    const deep = unknownKeys(tree, value);
    expect(deep).toEqual({ found: [], complete: false });
    const shallow = unknownKeys(tree, { name: 'root', children: [{ name: 'a', nmae: 'b' }] });
    expect(shallow).toEqual({
      found: [{ path: ['children', 0, 'nmae'], known: ['name', 'children'] }],
      complete: true,
    });
  });

  it('stops after its node bound on a very wide value, with what it found', () => {
    const wide = Array.from({ length: 20_000 }, () => ({ field: 'f', value: 'v' }));
    wide[0] = { field: 'f', value: 'v', op: 'eq' } as (typeof wide)[number];
    const r = unknownKeys(search, { query: 'q', filters: wide });
    expect(r.complete).toBe(false);
    expect(r.found).toEqual([{ path: ['filters', 0, 'op'], known: ['field', 'value'] }]);
  });

  it('takes a schema that is not a zod 4 schema as open instead of failing', () => {
    const foreign = { safeParse: () => ({ success: true }), _def: { typeName: 'ZodObject' } };
    expect(unknownKeys(foreign as unknown as z.ZodType, { a: 1 })).toEqual({ found: [], complete: true });
  });
});
