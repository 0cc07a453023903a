import { describe, expect, it } from 'vitest';
import { checkStageSchema, readableSchema } from '../../src/plan/stage-schema';
import { parseRunConfig } from '../../src/plan/config';

describe('stage schemas', () => {
  it('enforces required names whether or not properties declares them, nested too', () => {
    const schema = {
      type: 'object',
      required: ['answer', 'sources'],
      properties: { sources: { type: 'array', items: { type: 'object', required: ['url'] } } },
    };
    expect(checkStageSchema(schema, { answer: 'x', sources: [{ url: 'u' }] })).toEqual([]);
    const problems = checkStageSchema(schema, { sources: [{ title: 't' }] });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['answer', 'sources.0.url']);
    expect(checkStageSchema({ type: 'string' }, 3)[0]).toMatch(/^\(root\): /);
  });

  it('says when a schema cannot be checked, and a run config refuses it', () => {
    expect(readableSchema({ type: 'object' })).toEqual({ ok: true });
    expect(() =>
      parseRunConfig({
        strategy: 'staged',
        stages: [{ name: 'a', output_schema: { type: 'no-such-type' } }],
      }),
    ).toThrow(/not a JSON Schema this runtime can check/);
  });
});
