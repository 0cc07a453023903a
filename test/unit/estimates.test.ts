import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry, defineTool } from '../../src/executor/registry';
import { DEFAULT_STEP_LATENCY_MS, estimatePlan } from '../../src/plan/estimates';
import { buildGraph } from '../../src/plan/graph';
import type { Plan, PlanStep } from '../../src/plan/model';
import { demoTools } from '../../src/executor/tools/demo';

const tool = (name: string, latency?: number, tokens?: number) =>
  defineTool({
    name,
    description: name,
    version: '1',
    input: z.unknown(),
    idempotent: true,
    deterministic: true,
    run: () => Promise.resolve(null),
    ...(latency !== undefined ? { estimated_latency_ms: latency } : {}),
    ...(tokens !== undefined ? { estimated_tokens: tokens } : {}),
  });

const tools = new ToolRegistry([tool('fast', 100, 10), tool('slow', 2000), tool('plain')]);

function step(
  id: string,
  action: string,
  dependencies: string[] = [],
  extra: Partial<PlanStep> = {},
): PlanStep {
  return { id, description: id, action, parameters: {}, dependencies, ...extra };
}

function plan(steps: PlanStep[], extra: Partial<Plan> = {}): Plan {
  return { id: 'p', version: 1, goal: 'g', strategy: 'manual', steps, created_at: '', ...extra };
}

const estimate = (p: Plan, history?: Record<string, number>) =>
  estimatePlan(p, buildGraph(p.steps), tools, history);

describe('estimates', () => {
  it('finds the critical path by expected duration, not by step count', () => {
    //   a(fast) → b(fast) → c(fast)        300 ms
    //   s(slow) ──────────→ end(fast)      2100 ms
    const p = plan([
      step('a', 'fast'),
      step('b', 'fast', ['a']),
      step('c', 'fast', ['b']),
      step('s', 'slow'),
      step('end', 'fast', ['c', 's']),
    ]);
    expect(estimate(p).critical_path).toEqual({ steps: ['s', 'end'], duration_ms: 2100 });
  });

  it('prefers latency history over the tool estimate, and uses a default when neither exists', () => {
    const p = plan([step('a', 'slow'), step('b', 'plain', ['a'])]);
    expect(estimate(p).critical_path.duration_ms).toBe(2000 + DEFAULT_STEP_LATENCY_MS);
    expect(estimate(p, { slow: 50, plain: 25 }).critical_path.duration_ms).toBe(75);
  });

  it('reports the widest layer of steps that can run together', () => {
    const p = plan([
      step('root', 'fast'),
      step('x', 'fast', ['root']),
      step('y', 'fast', ['root']),
      step('z', 'fast', ['root']),
      step('join', 'fast', ['x', 'y', 'z']),
    ]);
    expect(estimate(p)).toMatchObject({ max_width: 3, step_count: 5 });
  });

  it('layers steps by their longest dependency chain', () => {
    // c depends on a (depth 1) and b (depth 2 via a): c is in layer 2, alone.
    const p = plan([
      step('a', 'fast'),
      step('b', 'fast', ['a']),
      step('c', 'fast', ['a', 'b']),
      step('d', 'fast'),
    ]);
    expect(estimate(p).max_width).toBe(2);
  });

  it('sums step and tool token estimates, sub-plans included', () => {
    const sub = plan([step('s1', 'fast'), step('s2', 'plain', [], { estimated_tokens: 7 })]);
    const p = plan([step('a', 'fast'), step('b', 'plain', [], { estimated_tokens: 100, subplan: sub })]);
    const e = estimate(p);
    expect(e.estimated_tokens).toBe(10 + 100 + 10 + 7);
    expect(e.total_step_count).toBe(4);
  });

  it("takes a sub-plan's critical path as its step's duration", () => {
    const sub = plan([step('s1', 'slow'), step('s2', 'slow', ['s1'])]);
    const p = plan([step('a', 'fast'), step('b', 'fast', ['a'], { subplan: sub })]);
    expect(estimate(p).critical_path).toEqual({ steps: ['a', 'b'], duration_ms: 4100 });
  });

  it("falls back to the plan's own token estimate when steps give none", () => {
    expect(estimate(plan([step('a', 'plain')], { estimated_total_tokens: 1234 })).estimated_tokens).toBe(
      1234,
    );
  });

  it('gives zeroes for an empty plan', () => {
    expect(estimate(plan([]))).toEqual({
      step_count: 0,
      total_step_count: 0,
      critical_path: { steps: [], duration_ms: 0 },
      max_width: 0,
      estimated_tokens: 0,
    });
  });

  it('still estimates the acyclic part of a cyclic graph', () => {
    const p = plan([step('a', 'fast'), step('b', 'fast', ['a', 'c']), step('c', 'fast', ['b'])]);
    expect(estimate(p).step_count).toBe(3);
  });
});

describe('a tool whose parameters say how long it takes', () => {
  it('estimates demo.sleep by its ms: the 1.5 s branch is the critical path (#13)', () => {
    const tools = new ToolRegistry(demoTools);
    const steps = [
      { id: 'a', action: 'demo.echo', parameters: {}, dependencies: [] },
      { id: 'b', action: 'demo.sleep', parameters: { ms: 1500 }, dependencies: ['a'] },
      { id: 'c', action: 'demo.sleep', parameters: { ms: 200 }, dependencies: ['a'] },
      { id: 'd', action: 'demo.echo', parameters: {}, dependencies: ['b', 'c'] },
      { id: 'e', action: 'demo.sleep', parameters: { ms: '{{ input.ms }}' }, dependencies: [] },
    ];
    const plan = {
      id: 'p',
      version: 1,
      goal: 'g',
      strategy: 'manual',
      steps,
      created_at: '',
    } as unknown as Plan;
    const est = estimatePlan(plan, buildGraph(plan.steps), tools);
    expect(est.critical_path.steps).toEqual(['a', 'b', 'd']);
    expect(est.critical_path.duration_ms).toBe(1 + 1500 + 1);
  });
});
