/**
 * A run's deletion stays within the calls one invocation may make (Workers Free: 50 subrequests):
 * each child run and KV copy it deletes is one, so a wide tree is deleted over several invocations,
 * its note keeping what is left, instead of failing at the limit on every retry, for ever. Counted at
 * the bindings the run's object is given, since workerd under Vitest enforces no limit.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { PlanRun } from '../../src/durable/plan-run';
import { countedNamespace, countedStub } from './counted-bindings';
import { api, startRun, waitForRun } from './helpers';
import { d1Rows, echo, objectStorage } from './run-delete-helpers';

describe('deleting a run with more child runs than one invocation may call', () => {
  it('deletes them over several invocations, each within SUBREQUESTS_PER_INVOCATION', async () => {
    const limit = 8;
    const ids = Array.from({ length: 8 }, (_, i) => `c${i}`);
    const id = await startRun(
      {
        steps: ids.map((c) => ({
          id: c,
          action: 'agent.dispatch',
          parameters: { plan: { goal: c, steps: [echo('x')] } },
        })),
      },
      { execution_mode: 'parallel', max_parallel: 8 },
    );
    const run = await waitForRun(id);
    expect(run.status).toBe('completed');
    const children = ids.map((c) => run.step_results[c].run_id as string);

    const calls = { n: 0 };
    await runInDurableObject(env.PLAN_RUN.getByName(id), (instance: PlanRun) => {
      const counted = {
        ...env,
        SUBREQUESTS_PER_INVOCATION: String(limit),
        PLAN_RUN: countedNamespace(env.PLAN_RUN, calls),
        KV: countedStub(env.KV, calls),
        DB: countedStub(env.DB, calls),
      };
      Object.defineProperty(instance, 'env', { value: counted });
    });
    const answers: number[] = [];
    for (let i = 0; i < 10; i++) {
      calls.n = 0;
      const del = await api('DELETE', `/v1/runs/${id}`);
      answers.push(del.status);
      expect(calls.n).toBeLessThanOrEqual(limit);
      if (del.status !== 503) break;
      expect(del.body.error.code).toBe('deletion_pending');
    }
    // Not all at once: 8 children and a KV copy, past the 8 calls one invocation may make.
    expect(answers[0]).toBe(503);
    expect([200, 404]).toContain(answers.at(-1));
    for (const gone of [id, ...children]) {
      expect((await api('GET', `/v1/runs/${gone}`)).status).toBe(404);
      expect(await d1Rows(gone)).toEqual({ runs: 0, versions: 0 });
      expect((await objectStorage(gone)).tables).toEqual([]);
    }
  });
});
