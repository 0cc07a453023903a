/**
 * The plan the Worker sends a new run's object as text (`plan_json`) is read through the plan's shape,
 * not cast: one the object cannot read (a Worker of another release, mid-deployment) is refused as
 * `invalid_plan` before anything is written, and leaves no run behind.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { runObject } from '../../src/durable/run-object';
import { parseRunConfig } from '../../src/plan/config';
import { api } from './helpers';

const request = (runId: string, planJson: string) => ({
  run_id: runId,
  goal: 'g',
  config: parseRunConfig({}),
  input: {},
  estimates: null,
  plan_json: planJson,
});

describe('a plan sent to a new run as text', () => {
  for (const [what, text, says] of [
    ['is not JSON', '{"id": "plan_x", "steps": [', 'is not JSON'],
    ['is not a plan', JSON.stringify({ id: 'plan_x', version: 1, goal: 'g', steps: 'a' }), 'steps'],
  ] as const) {
    it(`is refused as invalid_plan, leaving no run, when it ${what}`, async () => {
      const runId = `run_${crypto.randomUUID().replaceAll('-', '')}`;
      const created = await runObject(env.PLAN_RUN, runId).create(request(runId, text));
      expect(created).toMatchObject({
        ok: false,
        error: { code: 'invalid_plan', message: expect.stringContaining('The plan sent to the run') },
      });
      expect(JSON.stringify(created)).toContain(says);
      expect((await api('GET', `/v1/runs/${runId}`)).status).toBe(404);
    });
  }

  it('starts the run when it is a plan', async () => {
    const runId = `run_${crypto.randomUUID().replaceAll('-', '')}`;
    const plan = {
      id: 'plan_sent',
      version: 1,
      goal: 'g',
      strategy: 'manual',
      created_at: new Date().toISOString(),
      steps: [{ id: 'a', description: 'a', action: 'demo.echo', parameters: { v: 1 }, dependencies: [] }],
    };
    const created = await runObject(env.PLAN_RUN, runId).create(request(runId, JSON.stringify(plan)));
    expect(created.ok).toBe(true);
    expect((await api('GET', `/v1/runs/${runId}`)).body.plan.id).toBe('plan_sent');
  });
});
