/**
 * The input's shape the approval link's page gets instead of the input: a stand-in built from it gets
 * the same findings from validation as the input itself, and carries none of its values.
 */
import { describe, expect, it } from 'vitest';
import { demoTools } from '../../src/executor/tools/demo';
import { ToolRegistry } from '../../src/executor/registry';
import { inputShapeOf, isInputShape, MAX_SHAPE_DEPTH, standInOf } from '../../src/plan/input-shape';
import { validatePlan } from '../../src/plan/validate';

const input = JSON.parse(
  '{"wait":"5s","ms":2,"deep":{"note":"n","ids":[7,true,null,{"x":"y"}]},"__proto__":"p","empty":{},"none":[]}',
) as unknown;

describe("a run's input as kinds", () => {
  it('keeps every key, length and kind, and no value', () => {
    const shape = inputShapeOf(input);
    expect(shape).toEqual(
      JSON.parse(
        '{"wait":"string","ms":"number","deep":{"note":"string","ids":["number","boolean","null",{"x":"string"}]},"__proto__":"string","empty":{},"none":[]}',
      ),
    );
    expect(Object.hasOwn(shape as object, '__proto__')).toBe(true);
    expect(standInOf(shape!)).toEqual(
      JSON.parse(
        '{"wait":"","ms":0,"deep":{"note":"","ids":[0,false,null,{"x":""}]},"__proto__":"","empty":{},"none":[]}',
      ),
    );
    expect(Object.getPrototypeOf(standInOf(shape!))).toBe(Object.prototype);
    expect(isInputShape(shape)).toBe(true);
  });

  it('validates a plan against the stand-in as against the input', () => {
    const tools = new ToolRegistry(demoTools);
    const check = (ms: string, value: unknown) =>
      validatePlan(
        { steps: [{ id: 'pause', action: 'demo.sleep', parameters: { ms } }] },
        {
          tools,
          clock: { now: () => new Date(0) },
          ids: { id: (p) => `${p}_1`, uuid: () => 'u' },
          runInput: { value },
        },
      ).errors.map((f) => f.message);
    const refs = [
      'wait',
      'ms',
      'deep',
      'deep.ids',
      'deep.ids[0]',
      'deep.ids[1]',
      'deep.ids[2]',
      'deep.ids[9]',
      'none',
      'nope',
    ];
    for (const ref of refs)
      expect(check(`{{ input.${ref} }}`, standInOf(inputShapeOf(input)!))).toEqual(
        check(`{{ input.${ref} }}`, input),
      );
    expect(check('{{ input.wait }}', standInOf(inputShapeOf(input)!))).toHaveLength(1);
  });

  it(`says no more below ${MAX_SHAPE_DEPTH} levels, and reads back only what it makes`, () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < MAX_SHAPE_DEPTH + 10; i++) deep = i % 2 ? [deep] : { k: deep };
    const shape = inputShapeOf(deep);
    expect(isInputShape(shape)).toBe(true);
    expect(JSON.stringify(shape)).not.toContain('string');
    for (const bad of [undefined, 'date', 3, null, { a: 1 }, ['string', {}, 'object']])
      expect(isInputShape(bad)).toBe(false);
  });
});
