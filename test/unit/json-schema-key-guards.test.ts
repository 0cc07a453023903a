/**
 * Keys of MCP tools whose JSON Schemas zod converts to something other than a plain object — a key
 * guard piped into the object (`minProperties`, `maxProperties`, `propertyNames`) or an intersection
 * with pattern records (`patternProperties`) — are named at validation as a closed object's are: at
 * their full path, with the key likely meant and what the object takes.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { zodFromJsonSchema } from '../../src/mcp/json-schema';
import { objectKeysAt } from '../../src/plan/object-keys-at';
import { unknownKeys } from '../../src/plan/parameter-keys';
import { unknownKeysSummary } from '../../src/plan/parameter-problems';
import { oneStep, tool } from './validation-helpers';

const closed = {
  type: 'object',
  properties: { text: { type: 'string' }, max: { type: 'number' } },
  required: ['text'],
  additionalProperties: false,
};
const messages = (schema: unknown, parameters: Record<string, unknown>) =>
  oneStep(zodFromJsonSchema(schema), parameters).errors.map((e) => [e.path, e.message]);

describe('a key a JSON Schema with key keywords does not take', () => {
  it('is named with what was meant under minProperties and maxProperties, as for a plain closed object', () => {
    for (const extra of [{ minProperties: 1 }, { maxProperties: 3 }, {}])
      expect(messages({ ...closed, ...extra }, { text: 't', maxx: 2 })).toEqual([
        [
          ['parameters', 'maxx'],
          'Step "s": parameters.maxx: unknown parameter "maxx" (did you mean "max"?); tool team.tool takes text, max',
        ],
      ]);
  });

  it('is named at its full path in a nested object with minProperties', () => {
    const schema = {
      type: 'object',
      properties: { options: { ...closed, minProperties: 1 } },
      required: ['options'],
      additionalProperties: false,
    };
    expect(messages(schema, { options: { text: 't', maxx: 2 } })).toEqual([
      [
        ['parameters', 'options', 'maxx'],
        'Step "s": parameters.options.maxx: unknown key "maxx" (did you mean "max"?); parameters.options of tool team.tool takes text, max',
      ],
    ]);
    // The walk sees the object through the guard, so an attempt refuses it too.
    expect(unknownKeys(zodFromJsonSchema(schema), { options: { maxx: 2 } }).found).toEqual([
      { path: ['options', 'maxx'], known: ['text', 'max'] },
    ]);
    expect(
      unknownKeysSummary(tool('team.tool', zodFromJsonSchema(schema)), { options: { maxx: 2 } }),
    ).toContain('parameters.options.maxx: unknown key "maxx" (did you mean "max"?)');
  });

  it('is an unknown parameter when propertyNames lists the names (an open object closed by them)', () => {
    const schema = { ...closed, additionalProperties: true, propertyNames: { enum: ['text', 'max'] } };
    expect(messages(schema, { text: 't', maxx: 2 })).toEqual([
      [
        ['parameters', 'maxx'],
        'Step "s": parameters.maxx: unknown parameter "maxx" (did you mean "max"?); tool team.tool takes text, max',
      ],
    ]);
    expect(messages(schema, { text: 't', max: 2 })).toEqual([]);
  });

  it('says which form propertyNames wants for a name of another form', () => {
    const schema = { ...closed, additionalProperties: true, propertyNames: { pattern: '^[a-z]+$' } };
    expect(messages(schema, { text: 't', Max: 2 })).toEqual([
      [
        ['parameters', 'Max'],
        'Step "s": parameters.Max: key "Max" is not a name tool team.tool takes (must match the pattern /^[a-z]+$/) (did you mean "max"?)',
      ],
    ]);
    // Closed as well: the key is unknown to the object too, said once, that way.
    expect(messages({ ...closed, propertyNames: { pattern: '^[a-z]+$' } }, { text: 't', Max: 2 })).toEqual([
      [
        ['parameters', 'Max'],
        'Step "s": parameters.Max: unknown parameter "Max" (did you mean "max"?); tool team.tool takes text, max',
      ],
    ]);
  });

  it('takes a key patternProperties allows and names one it does not, with the patterns', () => {
    const schema = { ...closed, patternProperties: { '^x_': { type: 'string' } } };
    expect(messages(schema, { text: 't', x_note: 'n' })).toEqual([]);
    expect(messages(schema, { text: 't', maxx: 2, x_note: 'n' })).toEqual([
      [
        ['parameters', 'maxx'],
        'Step "s": parameters.maxx: unknown parameter "maxx" (did you mean "max"?); tool team.tool takes text, max, or keys matching /^x_/',
      ],
    ]);
  });

  it('is named inside a value a pattern property describes, and beside it when only patterns are taken', () => {
    const schema = {
      type: 'object',
      patternProperties: { '^x_': closed },
      additionalProperties: false,
    };
    expect(messages(schema, { x_a: { text: 't', maxx: 1 }, other: 1 })).toEqual([
      [
        ['parameters', 'x_a', 'maxx'],
        'Step "s": parameters.x_a.maxx: unknown key "maxx" (did you mean "max"?); parameters.x_a of tool team.tool takes text, max',
      ],
      [
        ['parameters', 'other'],
        'Step "s": parameters.other: unknown parameter "other"; tool team.tool takes only keys matching /^x_/',
      ],
    ]);
  });

  it('is not looked for behind a transform that changes the value: its keys are not the ones given', () => {
    const renamed = z.preprocess(
      (v) => ({ text: (v as { t?: unknown }).t }),
      z.strictObject({ text: z.string() }),
    );
    expect(unknownKeys(renamed, { t: 'x' }).found).toEqual([]);
    expect(oneStep(renamed, { t: 'x' }).valid).toBe(true);
  });
});

describe('objectKeysAt', () => {
  it('reads the keys and key patterns of the object at a path, through guards and intersections', () => {
    const schema = zodFromJsonSchema({
      type: 'object',
      properties: { items: { type: 'array', items: { ...closed, patternProperties: { '^x_': {} } } } },
      minProperties: 1,
    });
    expect(objectKeysAt(schema, ['items', 0])).toEqual({ known: ['text', 'max'], patterns: ['^x_'] });
    expect(objectKeysAt(schema, [])).toEqual({ known: ['items'], patterns: [] });
    expect(objectKeysAt(schema, ['items', 0, 'text'])).toBeNull();
    expect(objectKeysAt(z.union([z.object({ a: z.string() }), z.string()]), [])).toBeNull();
  });
});

describe('a JSON Schema that cannot be read', () => {
  it('takes any parameters, and validation says they were not checked and why', () => {
    const schema = zodFromJsonSchema({
      type: 'object',
      properties: { a: { type: 'string' } },
      if: { required: ['a'] },
      then: { required: ['b'] },
    });
    const r = oneStep(schema, { a: 'x', whatever: 1 });
    expect(r.valid).toBe(true);
    expect(r.unchecked).toEqual([
      {
        step_id: 's',
        tool: 'team.tool',
        path: ['parameters'],
        message:
          'Step "s": parameters not checked: the input schema of team.tool could not be read (Conditional schemas (if/then/else) are not supported); its server checks them when the step runs',
      },
    ]);
    // A schema that could be read leaves nothing unchecked.
    expect(oneStep(zodFromJsonSchema(closed), { text: 't' }).unchecked).toBeUndefined();
  });
});
