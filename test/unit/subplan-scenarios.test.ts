import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentDispatch } from '../../src/library/agent-dispatch';
import { LocalRunner } from '../../src/library/local-runner';
import { MAX_CHILD_RUN_DEPTH, MAX_TREE_CHILD_RUNS } from '../../src/engine/child-run';
import { defineTool } from '../../src/executor/registry';
import { deferToChildRun } from '../../src/executor/deferred';
import { demoEcho, demoSleep } from '../../src/executor/tools/demo';
import { checkScenario } from '../scenarios/subplan-check';
import { subplanScenarios } from '../scenarios/subplan-scenarios';
import { forkPlan } from '../scenarios/fork-plan';

// The Worker runs the same list through POST /v1/runs (test/workers/subplan-scenarios.test.ts).
describe('sub-plans in process (the shared scenarios)', () => {
  for (const s of subplanScenarios) {
    it(s.name, async () => {
      const runner = new LocalRunner({ tools: [demoEcho, demoSleep, agentDispatch] });
      runner.start({ plan: s.plan, config: s.config, input: s.input });
      const run = await runner.done();
      checkScenario(s, { run, events: runner.events });
    });
  }
});

/** Spends 7 prompt and 3 completion tokens. */
const spend = defineTool({
  name: 't.spend',
  description: 'reports tokens',
  version: '1',
  input: z.object({}),
  idempotent: true,
  deterministic: true,
  run: (_input, ctx) => {
    ctx.reportTokens?.({ prompt: 7, completion: 3 });
    return Promise.resolve({ spent: true });
  },
});

describe('sub-plans in process', () => {
  it('count the child run’s tokens in the parent’s usage', async () => {
    const runner = new LocalRunner({ tools: [spend, demoEcho] });
    runner.start({
      plan: {
        steps: [
          { id: 'own', action: 't.spend', dependencies: [] },
          {
            id: 'sub',
            action: 'demo.echo',
            dependencies: [],
            subplan: { steps: [{ id: 'a', action: 't.spend', dependencies: [] }] },
          },
        ],
      },
    });
    const run = await runner.done();
    expect(run.status).toBe('completed');
    expect(run.step_results.sub).toMatchObject({ token_usage: { prompt_tokens: 7, completion_tokens: 3 } });
    expect(run.token_usage).toEqual({ prompt_tokens: 14, completion_tokens: 6, total_tokens: 20 });
  });

  it('stop their child run when the parent is cancelled', async () => {
    const runner = new LocalRunner({ tools: [demoEcho, demoSleep] });
    runner.start({
      plan: {
        steps: [
          {
            id: 'sub',
            action: 'demo.echo',
            dependencies: [],
            subplan: {
              steps: [{ id: 'nap', action: 'demo.sleep', parameters: { ms: 60_000 }, dependencies: [] }],
            },
          },
        ],
      },
    });
    await new Promise((r) => setTimeout(r, 20));
    const cancelledAt = Date.now();
    runner.cancel('enough');
    const run = await runner.done();
    expect(run.status).toBe('cancelled');
    // done() waits for what the run started: the child's minute-long step was stopped with it.
    expect(Date.now() - cancelledAt).toBeLessThan(5_000);
  });

  it('leave unsupported_in_process only to tools that start a child run of their own', async () => {
    const selfStarting = defineTool({
      name: 't.spawn',
      description: 'defers to a child run it started itself, as the Worker’s plan.execute does',
      version: '1',
      input: z.object({}),
      idempotent: true,
      deterministic: false,
      run: () => Promise.resolve(deferToChildRun('run_elsewhere')),
    });
    const runner = new LocalRunner({ tools: [selfStarting] });
    runner.start({
      plan: { steps: [{ id: 'x', action: 't.spawn', dependencies: [] }] },
      config: { retry_failed_steps: 0 },
    });
    const run = await runner.done();
    expect(run.steps.x?.error?.code).toBe('unsupported_in_process');
  });
});

// As the Worker's child runs (test/workers/settings-secrets.test.ts): only the caller who starts a run
// chooses which variables its TEA settings read; a child plan a step passes on reads no others.
describe('sub-plans in process: settings ${VAR}', () => {
  const reading = (names: string[]) => ({
    goal: 'peek',
    steps: [{ id: 'peek', action: 'demo.echo', dependencies: [], parameters: { key: '${SECRET_KEY}' } }],
    metadata: { tea: { settings: { key: '${SECRET_KEY}' }, env_names: names } },
  });

  it('a child plan reads no variable its step could not', async () => {
    const runner = new LocalRunner({ tools: [demoEcho, agentDispatch], env: { SECRET_KEY: 'k-123' } });
    runner.start({
      plan: {
        steps: [
          {
            id: 'child',
            action: 'agent.dispatch',
            dependencies: [],
            parameters: { plan: reading(['SECRET_KEY']) },
          },
          { id: 'sub', action: 'demo.echo', dependencies: [], subplan: reading(['SECRET_KEY']) },
        ],
      },
    });
    const run = await runner.done();
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(JSON.stringify(run.step_results)).not.toContain('k-123');
    expect(JSON.stringify(run.step_results.child)).toContain('${SECRET_KEY}');
  });

  it('a child plan of a workflow whose settings read a variable reads it too', async () => {
    const runner = new LocalRunner({ tools: [demoEcho, agentDispatch], env: { SECRET_KEY: 'k-123' } });
    const child = {
      id: 'child',
      action: 'agent.dispatch',
      dependencies: [],
      parameters: { plan: reading(['SECRET_KEY']) },
    };
    runner.start({ plan: { ...reading(['SECRET_KEY']), steps: [child] } });
    const run = await runner.done();
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(JSON.stringify(run.step_results.child)).toContain('k-123');
  });

  it('a workflow the caller started still reads its own', async () => {
    const runner = new LocalRunner({ tools: [demoEcho], env: { SECRET_KEY: 'k-123' } });
    runner.start({ plan: reading(['SECRET_KEY']) });
    const run = await runner.done();
    expect(run.step_results.peek).toEqual({ key: 'k-123' });
  });
});

describe('child runs in process are bounded as the Worker’s are', () => {
  it(`nest at most ${MAX_CHILD_RUN_DEPTH} deep: a plan that dispatches itself stops`, async () => {
    const runner = new LocalRunner({ tools: [demoEcho, agentDispatch] });
    runner.start({ plan: forkPlan, input: { p: forkPlan } });
    const run = await runner.done();
    expect(run.status).toBe('failed');
    expect(run.steps.again!.error).toMatchObject({ code: 'child_run_failed' });
    // The refusal, ten levels down, is what the chain of failures reports.
    expect(JSON.stringify(run.steps.again!.error)).toContain(`nest at most ${MAX_CHILD_RUN_DEPTH} deep`);
  });

  it(`start at most ${MAX_TREE_CHILD_RUNS} child runs in one tree`, async () => {
    const n = MAX_TREE_CHILD_RUNS + 1;
    const runner = new LocalRunner({ tools: [demoEcho, agentDispatch] });
    runner.start({
      plan: {
        steps: Array.from({ length: n }, (_, i) => ({
          id: `s${i}`,
          action: 'demo.echo',
          dependencies: [],
          subplan: { steps: [{ id: 'a', action: 'demo.echo', dependencies: [] }] },
        })),
      },
      config: { max_steps: 2 * n, on_step_failure: 'skip' },
    });
    const run = await runner.done();
    const refused = Object.values(run.steps).filter((s) => s.error?.code === 'child_run_limit');
    expect(refused).toHaveLength(1);
    expect(Object.values(run.steps).filter((s) => s.status === 'completed')).toHaveLength(
      MAX_TREE_CHILD_RUNS,
    );
  });

  it("start as many as the runner's env says in MAX_CHILD_RUNS, as the Worker's variable does", async () => {
    const runner = new LocalRunner({ tools: [demoEcho, agentDispatch], env: { MAX_CHILD_RUNS: '3' } });
    runner.start({
      plan: {
        steps: Array.from({ length: 5 }, (_, i) => ({
          id: `s${i}`,
          action: 'demo.echo',
          dependencies: [],
          subplan: { steps: [{ id: 'a', action: 'demo.echo', dependencies: [] }] },
        })),
      },
      config: { on_step_failure: 'skip' },
    });
    const run = await runner.done();
    const refused = Object.values(run.steps).filter((s) => s.error?.code === 'child_run_limit');
    expect(refused).toHaveLength(2);
    expect(refused[0]!.error!.message).toContain("the most one run's tree may (3, MAX_CHILD_RUNS)");
    expect(Object.values(run.steps).filter((s) => s.status === 'completed')).toHaveLength(3);
  });
});
