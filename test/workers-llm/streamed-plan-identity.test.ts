import { afterEach, describe, expect, it } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { api, events, waitForRun } from '../workers/helpers';

afterEach(() => setLlmFetch(null));

/** A streamed NDJSON answer (seed 003): one `{"type":"step"}` line per step. */
const ndjson = (steps: unknown[]) => steps.map((step) => `${JSON.stringify({ type: 'step', step })}\n`);
const step = (id: string, action: string, parameters: Record<string, unknown>, deps: string[] = []) => ({
  id,
  description: id,
  action,
  parameters,
  dependencies: deps,
});

/** Every plan id the run's events, versions and planning trace name. */
async function planIdsOf(runId: string) {
  const ids = new Set<string>();
  for (const e of await events(runId)) {
    if (e.references?.plan_id) ids.add(e.references.plan_id);
    if (e.payload?.plan_id) ids.add(e.payload.plan_id);
    if (e.payload?.plan?.id) ids.add(e.payload.plan.id);
  }
  const versions = (await api('GET', `/v1/runs/${runId}/plans`)).body.versions as { plan_id: string }[];
  for (const v of versions) ids.add(v.plan_id);
  return ids;
}

describe('a streamed plan is one plan', () => {
  it('runs its steps under the id the authored plan, its versions and its planning trace carry', async () => {
    setLlmFetch(
      scriptedLlm([
        { stream: ndjson([step('a', 'demo.echo', { v: 1 }), step('b', 'demo.echo', { v: 2 }, ['a'])]) },
      ]).fetch,
    );
    const r = await api('POST', '/v1/runs', { goal: 'echo twice' });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect([...(await planIdsOf(run.run_id))]).toEqual([run.plan.id]);
    const trace = (await api('GET', `/v1/runs/${run.run_id}/planning`)).body;
    expect(trace.plan_id).toBe(run.plan.id);
    expect(trace.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['ok']);
  });

  it('keeps that id through a revision, and the planning trace shows the first plan’s attempt too', async () => {
    setLlmFetch(
      scriptedLlm([
        {
          stream: ndjson([
            step('a', 'demo.echo', { v: 1 }),
            step('b', 'demo.flaky', { fail_times: 5, key: `identity-${Date.now()}` }, ['a']),
          ]),
        },
        JSON.stringify({
          steps: [step('a', 'demo.echo', { v: 1 }), step('b2', 'demo.echo', { v: 2 }, ['a'])],
        }),
      ]).fetch,
    );
    const r = await api('POST', '/v1/runs', {
      goal: 'echo, fail, recover',
      config: { retry_failed_steps: 0 },
    });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.plan_version).toBe(2);
    expect([...(await planIdsOf(run.run_id))]).toEqual([run.plan.id]);
    const trace = (await api('GET', `/v1/runs/${run.run_id}/planning`)).body;
    expect(trace.attempts).toHaveLength(2); // the streamed first plan, then the revision
  });
});
