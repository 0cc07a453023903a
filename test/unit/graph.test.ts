import { describe, expect, it } from 'vitest';
import { buildGraph, findCycle, findCycles, topologicalOrder } from '../../src/plan/graph';
import type { PlanStep } from '../../src/plan/model';

function step(id: string, extra: Partial<PlanStep> = {}): PlanStep {
  return { id, description: id, action: 'demo.echo', parameters: {}, dependencies: [], ...extra };
}

describe('dependency graph', () => {
  it('combines explicit dependencies with references to step outputs', () => {
    const g = buildGraph([
      step('search'),
      step('fetch', { parameters: { url: '{{ steps.search.output.items[0].url }}' } }),
      step('sum', { dependencies: ['search'], parameters: { text: 'page: {{ steps.fetch.output }}' } }),
    ]);
    expect(g.deps).toEqual([[], ['search'], ['search', 'fetch']]);
    expect(g.dependents).toEqual([['fetch', 'sum'], ['sum'], []]);
  });

  it('makes a reader of a state path depend on every step writing it, above it or below it', () => {
    const g = buildGraph([
      step('whole', { output_path: 'state.user' }),
      step('name', { output_path: 'state.user.name' }),
      step('other', { output_path: 'state.account' }),
      step('readName', { parameters: { n: '{{ state.user.name }}' } }),
      step('readUser', { parameters: { u: '{{ state.user }}' } }),
      step('readAll', { parameters: { s: '{{ state }}' } }),
    ]);
    expect(g.deps[3]).toEqual(['whole', 'name']);
    expect(g.deps[4]).toEqual(['whole', 'name']);
    expect(g.deps[5]).toEqual(['whole', 'name', 'other']);
  });

  it('makes a state reader depend on the last root writer before it, and root writers on each other', () => {
    const g = buildGraph([
      step('early', { parameters: { p: '{{ state.plan }}' } }),
      step('decompose', { output_path: 'state' }),
      step('free'),
      step('execute', { parameters: { g: '{{ state.goal }}' }, output_path: 'state' }),
      step('status', { output_path: '{{ state }}' }),
      step('read', { parameters: { r: '{{ state.subtask_results.a }}' } }),
      step('readAll', { when: 'state != null' }),
      step('named', { output_path: 'state.plan' }),
      step('both', { parameters: { p: '{{ state.plan }}' } }),
    ]);
    expect(g.writes[1]).toMatchObject({ success: [], failure: null });
    // A root writer listed after a reader is not waited for (nor is a reader's own later write).
    expect(g.deps[0]).toEqual(['named']);
    // Steps that read nothing from state do not wait for merges.
    expect(g.deps[2]).toEqual([]);
    // Merges apply in plan order: each waits for the one before it (execute also reads state).
    expect(g.deps[3]).toEqual(['decompose']);
    expect(g.deps[4]).toEqual(['execute']);
    // Readers wait for the last merge above them, which waits for the earlier ones.
    expect(g.deps[5]).toEqual(['status']);
    expect(g.deps[6]).toEqual(['status', 'named']);
    expect(g.deps[8]).toEqual(['status', 'named']);
    expect(g.dependents[1]).toEqual(['execute']);
  });

  it('keeps root writers linear: one merge edge per step, however many merges come before', () => {
    const n = 20_000;
    const steps = Array.from({ length: n }, (_, i) =>
      step(`s${i}`, { parameters: { v: '{{ state.x }}' }, output_path: 'state' }),
    );
    const g = buildGraph(steps);
    let edges = 0;
    for (const d of g.depIndex) edges += d.length;
    expect(edges).toBe(n - 1);
    expect(g.deps[n - 1]).toEqual([`s${n - 2}`]);
  });

  it('counts both branches of an output path as writes', () => {
    const g = buildGraph([
      step('pay', { output_path: 'state.receipt || state.error' }),
      step('confirm', { parameters: { r: '{{ state.receipt }}' } }),
      step('report', { when: 'state.error != null' }),
    ]);
    expect(g.writes[0]).toMatchObject({ success: ['receipt'], failure: ['error'] });
    expect(g.deps[1]).toEqual(['pay']);
    expect(g.deps[2]).toEqual(['pay']);
  });

  it('takes dependencies from `when` and from fallback parameters', () => {
    const g = buildGraph([
      step('a'),
      step('b'),
      step('c', {
        when: 'steps.a.output.ok',
        fallback_action: { action: 'x', parameters: { v: '{{ steps.b.output }}' } },
      }),
    ]);
    expect(g.deps[2]).toEqual(['a', 'b']);
    expect(g.refs[2]!.map((r) => r.at)).toEqual([['fallback_action', 'parameters', 'v'], ['when']]);
  });

  it('does not make a step depend on itself through its own writes', () => {
    const g = buildGraph([step('inc', { parameters: { n: '{{ state.n }}' }, output_path: 'state.n' })]);
    expect(g.deps).toEqual([[]]);
    expect(findCycle(g)).toBeNull();
  });

  it('leaves unknown ids out of the graph and lists them as missing', () => {
    const g = buildGraph([
      step('a', { dependencies: ['ghost', 'ghost'], parameters: { x: '{{ steps.phantom.output }}' } }),
    ]);
    expect(g.deps).toEqual([[]]);
    expect(g.missing).toEqual([['ghost', 'phantom']]);
  });

  it('lists references, output paths and conditions that do not parse', () => {
    const g = buildGraph([
      step('a', { parameters: { x: '{{ nope }}' }, output_path: 'input.x', when: 'state.a &&' }),
    ]);
    expect(g.problems[0]!.map((p) => p.path)).toEqual([['parameters', 'x'], ['when'], ['output_path']]);
  });

  it('notes duplicated ids and keeps the first in the index', () => {
    const g = buildGraph([step('a'), step('b'), step('a')]);
    expect(g.index.get('a')).toBe(0);
    expect(g.duplicates).toEqual([2]);
  });
});

describe('cycles', () => {
  it('names the whole cycle, starting at its earliest step and following dependencies', () => {
    const g = buildGraph([
      step('start'),
      step('a', { dependencies: ['c', 'start'] }),
      step('b', { dependencies: ['a'] }),
      step('c', { dependencies: ['b'] }),
    ]);
    expect(findCycle(g)).toEqual(['a', 'c', 'b', 'a']);
  });

  it('finds a cycle made by references and state paths', () => {
    const g = buildGraph([
      step('a', { parameters: { x: '{{ state.fromB }}' }, output_path: 'state.fromA' }),
      step('b', { parameters: { x: '{{ state.fromA }}' }, output_path: 'state.fromB' }),
    ]);
    expect(findCycle(g)).toEqual(['a', 'b', 'a']);
  });

  it('reports a step that depends on itself', () => {
    expect(findCycle(buildGraph([step('a', { dependencies: ['a'] })]))).toEqual(['a', 'a']);
  });

  it('reports each separate cycle once', () => {
    const g = buildGraph([
      step('a', { dependencies: ['b'] }),
      step('b', { dependencies: ['a'] }),
      step('ok'),
      step('c', { dependencies: ['d'] }),
      step('d', { dependencies: ['c'] }),
    ]);
    expect(findCycles(g)).toEqual([
      ['a', 'b', 'a'],
      ['c', 'd', 'c'],
    ]);
  });

  it('handles a 100k-step chain closed into a cycle without recursion', () => {
    const n = 100_000;
    const steps = Array.from({ length: n }, (_, i) => step(`s${i}`, { dependencies: [`s${(i + 1) % n}`] }));
    const cycle = findCycle(buildGraph(steps));
    expect(cycle).toHaveLength(n + 1);
    expect(cycle?.[0]).toBe('s0');
    expect(cycle?.[1]).toBe('s1');
    expect(cycle?.at(-1)).toBe('s0');
  });

  it('finds no cycle in a 100k-step chain', () => {
    const steps = Array.from({ length: 100_000 }, (_, i) =>
      step(`s${i}`, i === 0 ? {} : { parameters: { prev: `{{ steps.s${i - 1}.output }}` } }),
    );
    const g = buildGraph(steps);
    expect(findCycle(g)).toBeNull();
    expect(topologicalOrder(g).complete).toBe(true);
  });
});

describe('topological order', () => {
  it('puts every step after its dependencies and leaves out steps behind a cycle', () => {
    const g = buildGraph([
      step('c', { dependencies: ['b'] }),
      step('b', { dependencies: ['a'] }),
      step('a'),
      step('x', { dependencies: ['y'] }),
      step('y', { dependencies: ['x'] }),
    ]);
    const { order, complete } = topologicalOrder(g);
    expect(order.map((i) => g.ids[i])).toEqual(['a', 'b', 'c']);
    expect(complete).toBe(false);
  });
});
