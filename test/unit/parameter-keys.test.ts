import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from '../../src/executor/registry';
import { zodFromJsonSchema } from '../../src/mcp/json-schema';
import { closedKeys } from '../../src/plan/parameter-keys';
import { oneStep, tool, validate } from './validation-helpers';

const wordcount = z.object({ text: z.string(), max: z.number().int().optional() });

describe('a parameter the tool does not take', () => {
  it("is invalid_parameters for a z.object tool, naming the key, the step, the tool's keys and the likely key", () => {
    const r = validate(new ToolRegistry([tool('team.wordcount', wordcount)]), {
      steps: [{ id: 'count', action: 'team.wordcount', parameters: { text: 'a b c', maxx: 2 } }],
    });
    expect(r.valid).toBe(false);
    expect(r.errors).toEqual([
      {
        code: 'invalid_parameters',
        message:
          'Step "count": parameters.maxx: unknown parameter "maxx" (did you mean "max"?); tool team.wordcount takes text, max',
        step_id: 'count',
        path: ['parameters', 'maxx'],
      },
    ]);
  });

  it('suggests nothing when no key is near, and says so when the tool takes none', () => {
    expect(oneStep(wordcount, { text: 't', colour: 'red' }).errors.map((e) => e.message)).toEqual([
      'Step "s": parameters.colour: unknown parameter "colour"; tool team.tool takes text, max',
    ]);
    expect(oneStep(z.object({}), { x: 1 }).errors.map((e) => e.message)).toEqual([
      'Step "s": parameters.x: unknown parameter "x"; tool team.tool takes no parameters',
    ]);
  });

  it('is reported once for a strict object (not again as zod’s unrecognized key)', () => {
    const r = oneStep(z.strictObject({ text: z.string(), max: z.number().optional() }), {
      text: 't',
      Max: 1,
    });
    expect(r.errors.map((e) => [e.code, e.path, e.message])).toEqual([
      [
        'invalid_parameters',
        ['parameters', 'Max'],
        'Step "s": parameters.Max: unknown parameter "Max" (did you mean "max"?); tool team.tool takes text, max',
      ],
    ]);
  });

  it('is allowed by an open schema: loose, passthrough, catchall, a record, a union', () => {
    const open: z.ZodType[] = [
      z.looseObject({ text: z.string() }),
      z.object({ text: z.string() }).passthrough(),
      z.object({ text: z.string() }).catchall(z.number()),
      z.record(z.string(), z.unknown()),
      z.union([z.object({ text: z.string() }), z.object({ n: z.number() })]),
    ];
    for (const schema of open) {
      const r = oneStep(schema, { text: 't', extra: 1 });
      expect(r.errors).toEqual([]);
    }
  });

  it('is found through wrappers that keep the keys: refine, optional, default, transform', () => {
    const wrapped: z.ZodType[] = [
      wordcount.refine((v) => v.text !== ''),
      wordcount.optional(),
      wordcount.default({ text: '' }),
      wordcount.transform((v) => v.text),
      wordcount.readonly(),
    ];
    for (const schema of wrapped) {
      const r = oneStep(schema, { text: 't', maxx: 2 });
      expect(r.errors.map((e) => e.path)).toEqual([['parameters', 'maxx']]);
    }
  });

  it('counts a key whose value is a reference, while the value is checked for shape only', () => {
    const registry = new ToolRegistry([tool('team.wordcount', wordcount), tool('demo.echo', z.unknown())]);
    const r = validate(registry, {
      steps: [
        { id: 'a', action: 'demo.echo' },
        {
          id: 'b',
          action: 'team.wordcount',
          dependencies: ['a'],
          parameters: { text: '{{ steps.a.output }}', maxx: '{{ steps.a.output }}' },
        },
      ],
    });
    expect(r.errors.map((e) => [e.code, e.step_id, e.path])).toEqual([
      ['invalid_parameters', 'b', ['parameters', 'maxx']],
    ]);
  });

  it('is checked in a fallback’s parameters and in a sub-plan’s steps', () => {
    const registry = new ToolRegistry([
      tool('team.wordcount', wordcount),
      tool('llm.call', z.object({ prompt: z.string().optional() })),
    ]);
    const r = validate(registry, {
      steps: [
        {
          id: 'a',
          action: 'team.wordcount',
          parameters: { text: 't' },
          fallback_action: { action: 'team.wordcount', parameters: { txt: 't' } },
        },
        {
          id: 'outer',
          subplan: { steps: [{ id: 'inner', action: 'team.wordcount', parameters: { texts: 't' } }] },
        },
      ],
    });
    expect(r.errors.map((e) => [e.step_id, e.path, e.message.includes('(did you mean "text"?)')])).toEqual([
      ['a', ['fallback_action', 'parameters', 'txt'], true],
      ['a', ['fallback_action', 'parameters', 'text'], false], // and the required key it lacks
      ['outer/inner', ['parameters', 'texts'], true],
      ['outer/inner', ['parameters', 'text'], false],
    ]);
  });

  it('quotes a key with its line breaks escaped and a long one cut, its path whole', () => {
    const long = 'k'.repeat(100);
    const r = oneStep(wordcount, { text: 't', 'a\nb': 1, [long]: 2 });
    expect(r.errors.map((e) => [e.message, e.path])).toEqual([
      [
        'Step "s": parameters["a\\nb"]: unknown parameter "a\\nb"; tool team.tool takes text, max',
        ['parameters', 'a\nb'],
      ],
      [
        `Step "s": parameters["${'k'.repeat(64)}…"]: unknown parameter "${'k'.repeat(64)}…"; tool team.tool takes text, max`,
        ['parameters', long],
      ],
    ]);
  });

  it('names the first ten keys of a step and counts the rest in one finding', () => {
    const params: Record<string, unknown> = { text: 't' };
    for (let k = 0; k < 25; k++) params[`k${k}`] = k;
    const r = oneStep(wordcount, params);
    expect(r.errors).toHaveLength(11);
    expect(r.errors.slice(0, 10).map((e) => e.path)).toEqual(
      Array.from({ length: 10 }, (_, k) => ['parameters', `k${k}`]),
    );
    expect(r.errors[10]).toEqual({
      code: 'invalid_parameters',
      message: 'Step "s": parameters: 15 more unknown parameters; tool team.tool takes text, max',
      step_id: 's',
      path: ['parameters'],
    });
  });
});

describe('closedKeys of an MCP tool’s JSON Schema', () => {
  const city = { city: { type: 'string' } };

  it('is the declared keys when additionalProperties is false, so a units key is refused', () => {
    const schema = zodFromJsonSchema({
      type: 'object',
      properties: city,
      required: ['city'],
      additionalProperties: false,
    });
    expect([...(closedKeys(schema) ?? [])]).toEqual(['city']);
    expect(oneStep(schema, { city: 'Oslo', units: 'metric' }).errors.map((e) => e.message)).toEqual([
      'Step "s": parameters.units: unknown parameter "units"; tool team.tool takes city',
    ]);
  });

  it('is null (open) when additionalProperties is absent, true or a schema', () => {
    for (const additionalProperties of [undefined, true, { type: 'string' }]) {
      const schema = zodFromJsonSchema({ type: 'object', properties: city, additionalProperties });
      expect(closedKeys(schema)).toBeNull();
      expect(oneStep(schema, { city: 'Oslo', units: 'metric' }).errors).toEqual([]);
    }
  });

  it('is the declared keys for a draft 2020-12 unevaluatedProperties: false, at any depth (zod reads no such keyword)', () => {
    const source = {
      type: 'object',
      properties: {
        city: { type: 'string' },
        units: {
          type: 'object',
          properties: { temperature: { type: 'string' } },
          unevaluatedProperties: false,
        },
        extra: { type: 'object', unevaluatedProperties: true },
      },
      unevaluatedProperties: false,
    };
    const before = structuredClone(source);
    const schema = zodFromJsonSchema(source);
    expect([...(closedKeys(schema) ?? [])]).toEqual(['city', 'units', 'extra']);
    expect(
      oneStep(schema, {
        city: 'Oslo',
        units: { temprature: 'C' },
        extra: { any: 1 },
        country: 'NO',
      }).errors.map((e) => e.path),
    ).toEqual([
      ['parameters', 'country'],
      ['parameters', 'units', 'temprature'],
    ]);
    expect(source).toEqual(before); // the server's listing is left as it was
  });

  it('leaves unevaluatedProperties beside a combinator unread: any object, and the server checks', () => {
    let why = '';
    const schema = zodFromJsonSchema(
      { type: 'object', allOf: [{ properties: { a: { type: 'string' } } }], unevaluatedProperties: false },
      (w) => (why = w),
    );
    expect(why).toContain('unevaluatedProperties');
    expect(closedKeys(schema)).toBeNull();
  });

  it('is what an MCP SDK server emits: z.object open, z.strictObject closed', () => {
    // The SDK lists a zod-declared tool as z.toJSONSchema(schema, { io: 'input' }) (zod-json-schema-compat).
    const listed = (s: z.ZodType) => zodFromJsonSchema(z.toJSONSchema(s, { io: 'input' }));
    expect(closedKeys(listed(z.object({ city: z.string() })))).toBeNull();
    expect([...(closedKeys(listed(z.strictObject({ city: z.string() }))) ?? [])]).toEqual(['city']);
  });
});
