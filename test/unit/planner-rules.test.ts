import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../src/executor/tools';
import { builtinRules } from '../../src/planner/builtin-rules';
import type { HTNNode, PlannerState } from '../../src/planner/contracts';
import { MethodHtnPlanner, planWithHtn } from '../../src/planner/htn';
import type { HtnDomain } from '../../src/planner/htn';
import { RuleBasedPlanner } from '../../src/planner/rule-planner';
import { validatePlan } from '../../src/plan/validate';
import type { PlanStep } from '../../src/plan/model';
import { sources } from './planner-helpers';

const registry = createToolRegistry({ DEMO_TOOLS: 'true' });
const state = (goal: string, tools = registry.describe()): PlannerState => ({
  goal,
  tools,
  limits: { max_steps: 20, max_depth: 3 },
});

function planner() {
  return new RuleBasedPlanner({ rules: builtinRules, ...sources() });
}

function stepsOf(goal: string) {
  const found = planner().planFor(state(goal));
  return (
    found && {
      rule: found.rule.id,
      steps: found.plan.steps.map((s) => [s.id, s.action, s.parameters, s.dependencies]),
    }
  );
}

describe('built-in rules', () => {
  it('plans "echo …" as one demo.echo step', () => {
    expect(stepsOf('Echo "hello world"')).toEqual({
      rule: 'builtin.echo',
      steps: [['echo', 'demo.echo', { message: 'hello world' }, []]],
    });
  });

  it('plans "wait N ms" and "sleep N seconds" as demo.sleep with milliseconds', () => {
    expect(stepsOf('wait 250 ms')?.steps).toEqual([['wait', 'demo.sleep', { ms: 250 }, []]]);
    expect(stepsOf('sleep for 2 seconds.')?.steps).toEqual([['wait', 'demo.sleep', { ms: 2000 }, []]]);
  });

  it('plans "fetch https://…" as a GET with http.request', () => {
    expect(stepsOf('Fetch https://example.com/api?x=1')?.steps).toEqual([
      ['fetch', 'http.request', { url: 'https://example.com/api?x=1', method: 'GET' }, []],
    ]);
  });

  it('plans "increment counter k" with demo.counter', () => {
    expect(stepsOf('increment counter visits')?.steps).toEqual([
      ['counter', 'demo.counter', { key: 'visits' }, []],
    ]);
  });

  it('chains clauses joined by "then" or ";" in order, numbering repeated ids', () => {
    expect(stepsOf('echo one then wait 5 ms; echo two, and then fetch https://a.test')).toEqual({
      rule: 'builtin.sequence',
      steps: [
        ['echo', 'demo.echo', { message: 'one' }, []],
        ['wait', 'demo.sleep', { ms: 5 }, ['echo']],
        ['echo_2', 'demo.echo', { message: 'two' }, ['wait']],
        ['fetch', 'http.request', { url: 'https://a.test', method: 'GET' }, ['echo_2']],
      ],
    });
  });

  it('echoes the whole text when a later clause is not understood', () => {
    expect(stepsOf('echo hello then make coffee')?.steps).toEqual([
      ['echo', 'demo.echo', { message: 'hello then make coffee' }, []],
    ]);
  });

  it('matches nothing it does not understand', () => {
    expect(stepsOf('Write a report on solar power')).toBeNull();
  });

  it('applies only when the tool is available', () => {
    const noDemo = createToolRegistry({}).describe();
    expect(planner().planFor(state('echo hi', noDemo))).toBeNull();
    expect(planner().planFor(state('fetch https://a.test', noDemo))?.plan.steps[0]?.action).toBe(
      'http.request',
    );
  });

  it('produces plans that pass validation with require_dependencies', () => {
    const found = planner().planFor(state('fetch https://a.test then echo done then wait 1 ms'))!;
    const r = validatePlan(found.plan, {
      tools: registry,
      config: { require_dependencies: true },
      ...sources(),
    });
    expect(r.errors).toEqual([]);
  });
});

describe('RuleBasedPlanner', () => {
  const ping: PlanStep = {
    id: 'ping',
    description: 'ping',
    action: 'demo.echo',
    parameters: { ping: true },
    dependencies: [],
  };

  it('takes added rules, first or last, and lists them', async () => {
    const p = planner().addRule(
      { id: 'ping', match: (s) => s.goal === 'echo ping', toPlanStep: () => ping },
      { first: true },
    );
    expect(p.getRules()[0]?.id).toBe('ping');
    const plan = await p.plan(state('echo ping'));
    expect(plan).toMatchObject({
      version: 1,
      goal: 'echo ping',
      strategy: 'flat',
      metadata: { planner: 'rules', rule: 'ping' },
    });
    expect(plan.steps).toEqual([ping]);
  });

  it('tries the next rule when a matching rule yields no step', () => {
    const p = new RuleBasedPlanner({ ...sources() })
      .addRule({ id: 'empty', match: () => true, toPlanStep: () => null })
      .addRule({ id: 'ping', match: () => true, toPlanStep: () => [ping] });
    expect(p.planFor(state('anything'))?.rule.id).toBe('ping');
  });

  it('rejects with no_rule_matched naming the rules when none applies', async () => {
    await expect(
      new RuleBasedPlanner({ ...sources() })
        .addRule({ id: 'r1', match: () => false, toPlanStep: () => null })
        .plan(state('x')),
    ).rejects.toMatchObject({
      code: 'no_rule_matched',
      message: 'No rule matches the goal "x" (rules: r1)',
    });
  });
});

describe('HTN planning', () => {
  const step = (id: string, params: Record<string, unknown> = {}): HTNNode => ({
    id,
    kind: 'primitive',
    primitive: { id, description: id, action: 'demo.echo', parameters: params, dependencies: [] },
  });
  const domain: HtnDomain = {
    root: (s) => ({ id: 'report', kind: 'compound', args: { topic: s.goal } }),
    methods: [
      {
        id: 'report.full',
        task: 'report',
        subtasks: () => [
          { id: 'research', kind: 'compound', parallel: true },
          step('write'),
          step('publish'),
        ],
      },
      {
        id: 'research.web',
        task: 'research',
        applicable: (_n, s) => s.tools.some((t) => t.name === 'http.request'),
        subtasks: () => [step('search'), step('read')],
      },
      { id: 'research.memory', task: 'research', subtasks: () => [step('recall')] },
    ],
  };

  it('decomposes compound tasks into primitive steps, ordering siblings and letting parallel ones fan out', async () => {
    const plan = await new MethodHtnPlanner(domain, sources()).plan(state('solar power'));
    expect(plan.steps.map((s) => [s.id, s.dependencies])).toEqual([
      ['search', []],
      ['read', []],
      ['write', ['search', 'read']],
      ['publish', ['write']],
    ]);
    expect(plan.metadata).toEqual({ planner: 'htn' });
    expect(validatePlan(plan, { tools: registry, ...sources() }).errors).toEqual([]);
  });

  it('uses the first applicable method, in the order a node names them', async () => {
    const noHttp = registry.describe().filter((t) => t.name !== 'http.request');
    const plan = await new MethodHtnPlanner(domain, sources()).plan(state('x', noHttp));
    expect(plan.steps.map((s) => s.id)).toEqual(['recall', 'write', 'publish']);
    const preferMemory: HtnDomain = {
      ...domain,
      root: () => ({ id: 'research', kind: 'compound', methods: ['research.memory', 'research.web'] }),
    };
    expect(
      (await new MethodHtnPlanner(preferMemory, sources()).plan(state('x'))).steps.map((s) => s.id),
    ).toEqual(['recall']);
  });

  it('rejects a task no method can decompose, and a method that recurses forever', async () => {
    const none: HtnDomain = { root: () => ({ id: 'mystery', kind: 'compound' }), methods: [] };
    await expect(new MethodHtnPlanner(none, sources()).plan(state('x'))).rejects.toMatchObject({
      code: 'htn_no_method',
    });
    const loop: HtnDomain = {
      root: () => ({ id: 'loop', kind: 'compound' }),
      methods: [{ id: 'again', task: 'loop', subtasks: () => [{ id: 'loop', kind: 'compound' }] }],
    };
    await expect(
      planWithHtn(new MethodHtnPlanner(loop, sources()), state('x'), sources()),
    ).rejects.toMatchObject({
      code: 'htn_too_deep',
    });
  });

  it('gives repeated primitive ids a numbered suffix', async () => {
    const twice: HtnDomain = {
      root: () => ({ id: 't', kind: 'compound' }),
      methods: [{ id: 'm', task: 't', subtasks: () => [step('x'), step('x')] }],
    };
    const plan = await new MethodHtnPlanner(twice, sources()).plan(state('x'));
    expect(plan.steps.map((s) => [s.id, s.dependencies])).toEqual([
      ['x', []],
      ['x_2', ['x']],
    ]);
  });
});
