import { beforeAll, describe, expect, it } from 'vitest';
import type { Plan, PlanStep } from '../../src/plan/model';
import { evaluate } from '../../scripts/eval/calc';
import { runPlan } from '../../scripts/eval/executor';
import { fakeLlm } from '../../scripts/eval/fake-llm';
import { GOOD_PLANS } from '../../scripts/eval/fake-plans';
import { GOALS } from '../../scripts/eval/goals';
import { main, NO_ENDPOINT } from '../../scripts/eval/main';
import { checkDependencies, isAtomic } from '../../scripts/eval/metrics';
import { formatReport } from '../../scripts/eval/report';
import { injectionTarget } from '../../scripts/eval/scenarios';
import { runSuite } from '../../scripts/eval/suite';
import type { GoalResult, ModelResult } from '../../scripts/eval/summary';
import { summarize } from '../../scripts/eval/summary';
import { evalTools } from '../../scripts/eval/tools';

const ENV = { OPENAI_BASE_URL: 'http://fake.test/v1' };

function plan(steps: Partial<PlanStep>[]): Plan {
  return {
    id: 'plan_t',
    version: 1,
    goal: 'g',
    strategy: 'flat',
    created_at: '2026-01-01T00:00:00.000Z',
    steps: steps.map((s, i) => ({
      id: `s${i}`,
      description: `step ${i}`,
      action: 'demo.echo',
      parameters: {},
      dependencies: [],
      ...s,
    })),
  };
}

function ids() {
  let n = 0;
  return {
    id: (p: string) => `${p}_${++n}`,
    uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  };
}

describe('the eval suite against the scripted endpoint (injected fetch, no network)', () => {
  let results: ModelResult[];
  let calls: ReturnType<typeof fakeLlm>['calls'];
  const byGoal = (model: number, id: string): GoalResult =>
    results[model]!.goals.find((g) => g.goal_id === id)!;

  beforeAll(async () => {
    const llm = fakeLlm();
    calls = llm.calls;
    results = await runSuite({ env: ENV, models: ['fake-good', 'fake-flawed'], fetch: llm.fetch });
  });

  it('scores the good model at every target: valid at once, complete, revised, exact dependencies, atomic steps', () => {
    const s = results[0]!.summary;
    expect(s.goals).toBe(GOALS.length);
    for (const rate of [
      s.validity_first,
      s.validity,
      s.completion,
      s.revision,
      s.dependencies,
      s.atomicity,
    ]) {
      expect(rate.rate).toBe(1);
    }
    expect(s.validity.n).toBe(12);
    expect(s.revision.n).toBe(12);
    expect(s.mean_tokens).toBeGreaterThan(0);
  });

  it('counts a cyclic first answer and an unknown tool against first-answer validity, and their repairs for it', () => {
    const s = results[1]!.summary;
    for (const id of ['search-title', 'calc-chain']) {
      expect(byGoal(1, id).planning).toMatchObject({ valid_first: false, valid: true, attempts: 2 });
    }
    expect(s.validity_first).toEqual({ hits: 9, n: 12, rate: 9 / 12 });
    expect(s.validity).toEqual({ hits: 11, n: 12, rate: 11 / 12 });
    expect(byGoal(1, 'greet-input').planning.error).toContain('planning_failed');
    expect(calls.filter((c) => c.model === 'fake-flawed' && c.turn === 'repair')).toHaveLength(3);
  });

  it('measures dependencies, completion, revisions and atomicity of the flawed plans exactly', () => {
    const s = results[1]!.summary;
    expect(byGoal(1, 'weather-compare').dependencies?.unnecessary).toEqual([['tokyo', 'paris']]);
    expect(byGoal(1, 'notes-roundtrip').dependencies?.missing).toEqual([['read', 'write']]);
    expect(byGoal(1, 'two-searches').dependencies?.missing).toEqual([['line', 'd1']]);
    expect(s.dependencies).toEqual({ hits: 8, n: 11, rate: 8 / 11 });

    // The read runs beside the write it should wait for, and finds no note.
    expect(byGoal(1, 'notes-roundtrip').execution).toMatchObject({ status: 'failed', completed: false });
    expect(s.completion).toEqual({ hits: 10, n: 11, rate: 10 / 11 });

    // The revision completes the run without redoing the failed work: not a fix.
    expect(byGoal(1, 'save-search').revision).toMatchObject({
      failed_step: 'save',
      requested: true,
      status: 'completed',
      effective: false,
    });
    expect(s.revision).toEqual({ hits: 10, n: 11, rate: 10 / 11 });

    expect(byGoal(1, 'halves').atomicity).toEqual({ atomic: 0, steps: 3 });
    expect(s.atomicity).toEqual({ hits: 28, n: 31, rate: 28 / 31 });
  });

  it('prints each criterion against its target and names what fell short', () => {
    const text = formatReport(results, { endpoint: ENV.OPENAI_BASE_URL });
    expect(text).toContain('Model fake-flawed');
    expect(text).toMatch(/plan validity \(after repair\)\s+91\.7%\s+>= 95%\s+11\/12\s+below target/);
    expect(text).toMatch(/dependency accuracy\s+72\.7%\s+>= 90%\s+8\/11\s+below target/);
    expect(text).toContain('two-searches: dependencies missing line->d1');
    expect(text).toContain('Comparison');
  });
});

describe('dependency accuracy', () => {
  const search = { id: 'search', action: 'eval.search', parameters: { query: 'x' } };
  const format = (deps: string[]) => ({
    id: 'format',
    action: 'eval.format',
    parameters: { template: '{t}', values: { t: '{{ steps.search.output.results[0].title }}' } },
    dependencies: deps,
  });

  it('is accurate when the declared dependencies are exactly the data flow', () => {
    expect(checkDependencies(plan([search, format(['search'])]), {})).toEqual({
      accurate: true,
      unnecessary: [],
      missing: [],
    });
  });

  it('finds a data-flow dependency left undeclared, although the reference would order the run', () => {
    expect(checkDependencies(plan([search, format([])]), {}).missing).toEqual([['format', 'search']]);
  });

  it('finds an ordering the goal asks for that no reference expresses', () => {
    const steps = [
      { id: 'w', action: 'eval.notes_write', parameters: { key: 'k', text: 't' } },
      { id: 'r', action: 'eval.notes_read', parameters: { key: 'k' } },
    ];
    const order = [['eval.notes_write', 'eval.notes_read']] as const;
    expect(checkDependencies(plan(steps), { order }).missing).toEqual([['r', 'w']]);
    expect(
      checkDependencies(plan([steps[0]!, { ...steps[1]!, dependencies: ['w'] }]), { order }).accurate,
    ).toBe(true);
  });

  it('accepts an edge the needs already imply transitively, and rejects one nothing calls for', () => {
    const a = { id: 'a', parameters: { v: 1 } };
    const b = { id: 'b', parameters: { v: '{{ steps.a.output }}' }, dependencies: ['a'] };
    const c = { id: 'c', parameters: { v: '{{ steps.b.output }}' }, dependencies: ['b', 'a'] };
    expect(checkDependencies(plan([a, b, c]), {}).accurate).toBe(true);
    const d = { id: 'd', parameters: {}, dependencies: ['a'] };
    expect(checkDependencies(plan([a, b, c, d]), {}).unnecessary).toEqual([['d', 'a']]);
  });

  it('counts reading a state path as depending on the step that writes it', () => {
    const w = { id: 'w', parameters: { v: 1 }, output_path: 'state.x' };
    const r = { id: 'r', parameters: { v: '{{ state.x }}' } };
    expect(checkDependencies(plan([w, r]), {}).missing).toEqual([['r', 'w']]);
  });
});

describe('eval measures and tools', () => {
  const tools = evalTools();

  it('calls a step atomic when it is one registered tool call that says what it does', () => {
    const step = (over: Partial<PlanStep>): PlanStep => ({
      id: 'a',
      description: 'add two numbers',
      action: 'eval.calc',
      parameters: {},
      dependencies: [],
      ...over,
    });
    expect(isAtomic(step({}), tools)).toBe(true);
    expect(isAtomic(step({ description: 'eval.calc' }), tools)).toBe(false); // the default filled in
    expect(isAtomic(step({ description: 'eval.calc', expected_output: 'the sum' }), tools)).toBe(true);
    expect(isAtomic(step({ action: 'llm.call' }), tools)).toBe(false);
    expect(isAtomic(step({ subplan: plan([{}]) }), tools)).toBe(false);
  });

  it('injects the failure into a step in the middle of the graph', () => {
    const p = plan([{}, { dependencies: ['s0'] }, { dependencies: ['s1'] }]);
    expect(injectionTarget(p)).toBe('s1');
    expect(injectionTarget(plan([{}, {}]))).toBe('s1');
  });

  it('computes arithmetic without eval, and says what is wrong with a bad expression', () => {
    expect(evaluate('(17 + 25) * 3 / 7')).toBe(18);
    expect(evaluate('2 ^ 3 ^ 2')).toBe(512);
    expect(evaluate('-2 ** 2 + 10 % 4')).toBe(-2);
    expect(evaluate('2 ^ -1')).toBe(0.5);
    expect(() => evaluate('1 / 0')).toThrow(/division by zero/);
    expect(() => evaluate('alert(1)')).toThrow(/unexpected "a"/);
    expect(() => evaluate('(1 + 2')).toThrow(/never closed|ends too early/);
  });

  it('runs a plan in-process: the rates tool fails once and the retry gets past it on the virtual clock', async () => {
    const steps = GOOD_PLANS.currency!.map((s) => ({ ...s, description: s.description ?? s.id }));
    const report = await runPlan({
      runId: 'r1',
      goal: 'g',
      plan: plan(steps),
      tools: evalTools(),
      ids: ids(),
    });
    expect(report.status).toBe('completed');
    expect(report.final_output).toEqual({ value: 230 });
  });

  it('rates a model with nothing to measure as null, not 0%', () => {
    const failed: GoalResult = {
      goal_id: 'x',
      planning: {
        valid_first: false,
        valid: false,
        attempts: 1,
        call_errors: 1,
        latency_ms: 5,
        tokens: 0,
        error: 'e',
      },
      atomicity: null,
      dependencies: null,
      execution: null,
      revision: null,
    };
    const s = summarize('m', [failed]);
    expect(s.validity).toEqual({ hits: 0, n: 1, rate: 0 });
    expect(s.completion).toEqual({ hits: 0, n: 0, rate: null });
    expect(formatReport([{ model: 'm', summary: s, goals: [failed] }], { endpoint: 'e' })).toContain(
      'No planning call got an answer',
    );
  });
});

describe('the fake endpoint and the command line', () => {
  it('answers an unknown model with a 404, as real servers do', async () => {
    const res = await fakeLlm().fetch('http://fake.test/v1/chat/completions', {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt-x', messages: [] }),
    });
    expect(res.status).toBe(404);
  });

  it('exits 2 naming the variables to set when no endpoint is configured', async () => {
    const err: string[] = [];
    const code = await main([], {}, { out: () => {}, err: (t) => void err.push(t) });
    expect(code).toBe(2);
    expect(err.join('')).toBe(`${NO_ENDPOINT}\n`);
    for (const v of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'PLANNER_MODEL', 'EVAL_MODELS'])
      expect(NO_ENDPOINT).toContain(v);
  });

  it('refuses an unknown goal id with exit 2', async () => {
    const err: string[] = [];
    const code = await main(['--goals', 'nope'], ENV, { out: () => {}, err: (t) => void err.push(t) });
    expect(code).toBe(2);
    expect(err.join('')).toContain('Unknown goal: nope');
  });
});
