import { describe, expect, it } from 'vitest';
import { jsonNestingDepth, MAX_NESTING_DEPTH } from '../../src/nesting';

const nested = (n: number, open = '[', close = ']') => open.repeat(n) + '1' + close.repeat(n);

describe('jsonNestingDepth', () => {
  it('is 0 for scalars and counts each array or object level', () => {
    expect(jsonNestingDepth('"x"')).toBe(0);
    expect(jsonNestingDepth('[]')).toBe(1);
    expect(jsonNestingDepth('{"a": [1, {"b": []}], "c": {}}')).toBe(4);
  });

  it('gives the deepest point, not the last one', () => {
    expect(jsonNestingDepth('[[[[1]]], [1]]')).toBe(4);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonNestingDepth('["[[[{{{", "\\"[[[", "\\\\", [1]]')).toBe(2);
    expect(jsonNestingDepth(JSON.stringify({ a: '"]]]"', b: [['\\']] }))).toBe(3);
  });

  it('measures 10,000 levels without recursing', () => {
    expect(jsonNestingDepth(nested(10_000))).toBe(10_000);
    expect(jsonNestingDepth(nested(10_000, '{"a":', '}'))).toBe(10_000);
  });

  it('keeps the limit above what a plan with many sub-plan levels nests', () => {
    let plan: unknown = { steps: [{ id: 's', action: 'demo.echo', parameters: { a: { b: [1] } } }] };
    for (let i = 0; i < 20; i++) plan = { steps: [{ id: `p${i}`, action: 'plan', subplan: plan }] };
    expect(jsonNestingDepth(JSON.stringify({ plan }))).toBeLessThan(MAX_NESTING_DEPTH);
  });
});
