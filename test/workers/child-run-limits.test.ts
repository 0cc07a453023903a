/**
 * A plan that dispatches itself — its child's plan and input read from its own input — started child
 * runs without end: under `wrangler dev`, one request made thousands of objects a minute until the
 * runtime ran out of files and crashed. Child runs now nest at most MAX_CHILD_RUN_DEPTH deep and a
 * tree starts at most MAX_TREE_CHILD_RUNS, each counted at the tree's root.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { MAX_CHILD_RUN_DEPTH, MAX_TREE_CHILD_RUNS } from '../../src/durable/child-run-limits';
import { runObject } from '../../src/durable/run-object';
import { api, startRun, waitForRun, type Json } from './helpers';
import { forkPlan } from '../scenarios/fork-plan';

describe('child runs: a plan that dispatches itself stops', () => {
  for (const mode of ['sequential', 'parallel'] as const) {
    it(`nests at most ${MAX_CHILD_RUN_DEPTH} deep, the deepest step refused as child_run_limit (${mode})`, async () => {
      const rootId = await startRun(forkPlan, { execution_mode: mode }, { p: forkPlan });
      const root = await waitForRun(rootId, undefined, 60_000);
      expect(root.status).toBe('failed');
      // Down the chain: each run's step names its child, until the one whose step was refused.
      const chain: Json[] = [root];
      for (let run = root; run.steps.again.error?.code !== 'child_run_limit';) {
        const listed = await api('GET', `/v1/runs?parent_run_id=${run.run_id as string}`);
        const next = (listed.body.runs as Json[])[0];
        expect(next).toBeDefined();
        run = (await api('GET', `/v1/runs/${next!.run_id as string}`)).body;
        chain.push(run);
        expect(chain.length).toBeLessThanOrEqual(MAX_CHILD_RUN_DEPTH + 1);
      }
      expect(chain.length).toBe(MAX_CHILD_RUN_DEPTH + 1);
      const deepest = chain.at(-1)!;
      expect(deepest.steps.again.error.message).toContain(`nest at most ${MAX_CHILD_RUN_DEPTH} deep`);
      expect(deepest.steps.again.error.retryable).toBe(false);
      // Every run above it failed with its child: nothing is left running.
      for (const run of chain.slice(0, -1)) expect(run.steps.again.error.code).toBe('child_run_failed');
    });
  }

  it(`counts every child run of a tree at its root and refuses one more`, async () => {
    const rootId = await startRun({ steps: [{ id: 'x', action: 'demo.echo', parameters: {} }] });
    await waitForRun(rootId);
    const root = runObject(env.PLAN_RUN, rootId);
    for (let i = 0; i < MAX_TREE_CHILD_RUNS; i++) {
      expect((await root.countChildRun(`run_child_${i}`)).ok).toBe(true);
    }
    const refused = await root.countChildRun('run_child_one_more');
    expect(refused).toMatchObject({ ok: false, error: { code: 'child_run_limit' } });
    // A child counted before (a repeated attempt finds the same child) is not refused.
    expect((await root.countChildRun('run_child_0')).ok).toBe(true);
  });

  it('creates the child uncounted when its run’s object is on the release before (a rollout)', async () => {
    const child = { steps: [{ id: 'c', action: 'demo.echo', parameters: { v: 1 } }] };
    const runId = await startRun({
      steps: [
        { id: 'ask', action: 'human.input', parameters: { prompt: 'Go?' } },
        { id: 'child', action: 'agent.dispatch', parameters: { plan: child }, dependencies: ['ask'] },
      ],
    });
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    let restore = () => undefined as void;
    // The env object is the Worker's too: the run's own stub answers as an older object would.
    await runInDurableObject(env.PLAN_RUN.getByName(runId), (instance) => {
      const own = (instance as unknown as { env: Env }).env;
      const real = own.PLAN_RUN;
      const older = (stub: ReturnType<typeof real.getByName>) =>
        new Proxy(stub, {
          get: (target, prop) =>
            prop === 'reserveChildRun'
              ? () => Promise.reject(new TypeError('The RPC receiver does not implement "reserveChildRun".'))
              : (Reflect.get(target, prop) as unknown),
        });
      own.PLAN_RUN = new Proxy(real, {
        get: (target, prop) =>
          prop === 'getByName'
            ? (name: string) => (name === runId ? older(target.getByName(name)) : target.getByName(name))
            : (Reflect.get(target, prop) as unknown),
      });
      restore = () => void (own.PLAN_RUN = real);
    });
    try {
      expect((await api('POST', `/v1/runs/${runId}/input`, { input: 'go' })).status).toBe(200);
      const run = await waitForRun(runId);
      expect(run.status).toBe('completed');
      expect(run.step_results.child.subtask_results).toEqual({ c: { v: 1 } });
    } finally {
      restore();
    }
  });
});
