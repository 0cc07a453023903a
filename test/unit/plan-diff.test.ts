import { describe, expect, it } from 'vitest';
import { deepEqual, diffPlans } from '../../src/plan/diff';
import type { Plan, PlanStep } from '../../src/plan/model';

function step(id: string, extra: Partial<PlanStep> = {}): PlanStep {
  return { id, description: id, action: 'demo.echo', parameters: {}, dependencies: [], ...extra };
}

function plan(version: number, steps: PlanStep[], extra: Partial<Plan> = {}): Plan {
  return {
    id: 'plan_1',
    version,
    goal: 'g',
    strategy: 'manual',
    steps,
    created_at: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

describe('diffPlans', () => {
  it('reports nothing for two versions with the same content', () => {
    const a = plan(1, [step('a'), step('b', { dependencies: ['a'], parameters: { x: { y: [1, 2] } } })]);
    const b = plan(2, structuredClone(a.steps));
    expect(diffPlans(a, b)).toEqual({
      from_version: 1,
      to_version: 2,
      fields: {},
      added: [],
      removed: [],
      changed: [],
      reordered: false,
    });
  });

  it('lists steps only in the new version as added, whole and in its order', () => {
    const d = diffPlans(plan(1, [step('a')]), plan(2, [step('z'), step('a'), step('m')]));
    expect(d.added).toEqual([step('z'), step('m')]);
    expect(d.removed).toEqual([]);
  });

  it('lists the ids of steps only in the old version as removed', () => {
    const d = diffPlans(plan(1, [step('a'), step('b'), step('c')]), plan(2, [step('b')]));
    expect(d.removed).toEqual(['a', 'c']);
    expect(d.added).toEqual([]);
  });

  it('reports every changed field with its old and new value, absent fields as null', () => {
    const a = plan(1, [step('s', { parameters: { q: 'old' }, when: 'state.go', retries: 2 })]);
    const b = plan(2, [
      step('s', { parameters: { q: 'new' }, action: 'http.request', timeout_ms: 500, retries: 2 }),
    ]);
    expect(diffPlans(a, b).changed).toEqual([
      {
        step_id: 's',
        fields: {
          action: { from: 'demo.echo', to: 'http.request' },
          parameters: { from: { q: 'old' }, to: { q: 'new' } },
          timeout_ms: { from: null, to: 500 },
          when: { from: 'state.go', to: null },
        },
        dependencies_added: [],
        dependencies_removed: [],
      },
    ]);
  });

  it('lists changed fields in sorted order so the output is stable', () => {
    const a = plan(1, [step('s')]);
    const b = plan(2, [step('s', { when: 'x', description: 'd', action: 'llm.call' })]);
    expect(Object.keys(diffPlans(a, b).changed[0]?.fields ?? {})).toEqual(['action', 'description', 'when']);
  });

  it('compares nested values structurally, whatever their key order', () => {
    const a = plan(1, [step('s', { parameters: { a: 1, b: { c: [1, { d: 2, e: 3 }] } } })]);
    const b = plan(2, [step('s', { parameters: { b: { c: [1, { e: 3, d: 2 }] }, a: 1 } })]);
    expect(diffPlans(a, b).changed).toEqual([]);
  });

  it('sees a change deep inside parameters and in array order', () => {
    const a = plan(1, [step('s', { parameters: { list: [1, 2, 3], o: { p: { q: true } } } })]);
    const b1 = plan(2, [step('s', { parameters: { list: [1, 3, 2], o: { p: { q: true } } } })]);
    const b2 = plan(2, [step('s', { parameters: { list: [1, 2, 3], o: { p: { q: false } } } })]);
    expect(diffPlans(a, b1).changed).toHaveLength(1);
    expect(diffPlans(a, b2).changed).toHaveLength(1);
  });

  it('treats null and an absent optional field as the same', () => {
    const a = plan(1, [step('s', { fallback_action: null, estimated_tokens: null })]);
    const b = plan(2, [step('s')]);
    expect(diffPlans(a, b).changed).toEqual([]);
  });

  it('reports dependency changes as added and removed lists besides the field change', () => {
    const a = plan(1, [step('a'), step('b'), step('c'), step('d', { dependencies: ['a', 'b'] })]);
    const b = plan(2, [step('a'), step('b'), step('c'), step('d', { dependencies: ['b', 'c'] })]);
    expect(diffPlans(a, b).changed).toEqual([
      {
        step_id: 'd',
        fields: { dependencies: { from: ['a', 'b'], to: ['b', 'c'] } },
        dependencies_added: ['c'],
        dependencies_removed: ['a'],
      },
    ]);
  });

  it('does not count reordered or repeated dependencies as a change', () => {
    const a = plan(1, [step('a'), step('b'), step('c', { dependencies: ['a', 'b'] })]);
    const b = plan(2, [step('a'), step('b'), step('c', { dependencies: ['b', 'a', 'b'] })]);
    expect(diffPlans(a, b).changed).toEqual([]);
  });

  it('reports a replaced sub-plan as a change of the subplan field', () => {
    const sub = (goal: string) => plan(1, [step('inner')], { id: 'plan_sub', goal });
    const d = diffPlans(
      plan(1, [step('s', { subplan: sub('x') })]),
      plan(2, [step('s', { subplan: sub('y') })]),
    );
    expect(Object.keys(d.changed[0]?.fields ?? {})).toEqual(['subplan']);
  });

  it('flags a reorder of the steps both versions share', () => {
    const d = diffPlans(
      plan(1, [step('a'), step('b'), step('c')]),
      plan(2, [step('a'), step('c'), step('b')]),
    );
    expect(d.reordered).toBe(true);
    expect(d.changed).toEqual([]);
  });

  it('does not call insertions and removals around unmoved steps a reorder', () => {
    const d = diffPlans(
      plan(1, [step('x'), step('a'), step('b'), step('c')]),
      plan(2, [step('new'), step('a'), step('b'), step('other'), step('c')]),
    );
    expect(d.reordered).toBe(false);
    expect(d.added.map((s) => s.id)).toEqual(['new', 'other']);
    expect(d.removed).toEqual(['x']);
  });

  it('reports changes to goal, success criteria and strategy', () => {
    const a = plan(1, [], { goal: 'old', strategy: 'flat' });
    const b = plan(3, [], { goal: 'new', strategy: 'flat', success_criteria: 'all green' });
    const d = diffPlans(a, b);
    expect(d.fields).toEqual({
      goal: { from: 'old', to: 'new' },
      success_criteria: { from: null, to: 'all green' },
    });
    expect(d.from_version).toBe(1);
    expect(d.to_version).toBe(3);
  });

  it('survives a JSON round trip unchanged', () => {
    const d = diffPlans(plan(1, [step('a', { when: 'x' })]), plan(2, [step('a'), step('b')]));
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);
  });

  it('diffs two 10,000-step plans in linear time', () => {
    const n = 10_000;
    // Counted, not timed: every read of a step's fields. A diff that looks a step up by scanning the
    // other plan reads ~n fields per step (10^8 here); a linear one a few per step.
    let reads = 0;
    const counted = <T extends object>(o: T): T =>
      new Proxy(o, {
        get(target, key, receiver) {
          reads += 1;
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
    const make = (i: number) =>
      counted(
        step(`s${i}`, {
          dependencies: i > 0 ? [`s${i - 1}`] : [],
          parameters: { i, tags: ['a', 'b'], nested: { i } },
        }),
      );
    const a = plan(
      1,
      Array.from({ length: n }, (_, i) => make(i)),
    );
    const bSteps = Array.from({ length: n }, (_, i) => make(i));
    bSteps[5000] = counted({ ...make(5000), parameters: { i: -1 } });
    bSteps.splice(9000, 1);
    bSteps.push(step('tail'));
    reads = 0;

    const d = diffPlans(a, plan(2, bSteps));

    expect(d.added.map((s) => s.id)).toEqual(['tail']);
    expect(d.removed).toEqual(['s9000']);
    expect(d.changed.map((c) => c.step_id)).toEqual(['s5000']);
    expect(d.reordered).toBe(false);
    expect(reads).toBeGreaterThan(n);
    expect(reads).toBeLessThan(50 * n);
  });
});

describe('deepEqual', () => {
  it('ignores keys whose value is undefined, as JSON does', () => {
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
  });

  it('tells arrays from objects with the same keys', () => {
    expect(deepEqual(['x'], { 0: 'x' })).toBe(false);
  });

  it('compares values nested deeper than the call stack could recurse', () => {
    const deep = (leaf: number) => {
      let v: unknown = leaf;
      for (let i = 0; i < 100_000; i++) v = [v];
      return v;
    };
    expect(deepEqual(deep(1), deep(1))).toBe(true);
    expect(deepEqual(deep(1), deep(2))).toBe(false);
  });
});
