/**
 * An approver's edit is held to the run's input like the plan the run was created with: a whole
 * `{{ input.… }}` the edited step's tool cannot take is refused (422 invalid_plan, the finding in
 * `details.errors`), and the run keeps waiting on the version it had — through the HTTP API and the
 * run's object, edits and a whole plan alike.
 */
import { describe, expect, it } from 'vitest';
import { api, startRun, waitForRun, type Json } from './helpers';
import { echo } from '../fixtures/echo-steps';

/** `edgeplan run --input wait=5s`: a string, which demo.sleep's `ms` (a number) cannot take. */
const input = { wait: '5s', ms: 1 };
const awaiting = (r: Json) => r.status === 'awaiting_approval';
const finding = {
  code: 'bad_reference',
  message:
    'Step "pause": {{ input.wait }} is a string but parameters.ms of tool demo.sleep expects a number ' +
    "(as the run's input gives it)",
  step_id: 'pause',
  path: ['parameters', 'ms'],
};

async function awaitingRun(): Promise<string> {
  const runId = await startRun(
    { goal: 'pause then echo', steps: [echo('a')] },
    { require_plan_approval: true },
    input,
  );
  await waitForRun(runId, awaiting);
  return runId;
}

describe("an edit at approval is checked against the run's input", () => {
  it('refuses an added step whose whole {{ input.… }} its tool cannot take; the run keeps waiting on v1', async () => {
    const runId = await awaitingRun();
    const pause = { id: 'pause', action: 'demo.sleep', parameters: { ms: '{{ input.wait }}' } };
    const refused = await api('POST', `/v1/runs/${runId}/approval`, {
      decision: 'modify',
      edits: [{ op: 'add_step', step: pause }],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('invalid_plan');
    expect(refused.body.error.message).toBe(`The plan has 1 finding(s): ${finding.message}`);
    expect(refused.body.error.details.errors).toEqual([finding]);
    const run = (await api('GET', `/v1/runs/${runId}`)).body;
    expect([run.status, run.plan_version]).toEqual(['awaiting_approval', 1]);
    expect((await api('GET', `/v1/runs/${runId}/plans`)).body.versions).toHaveLength(1);
    // The same step reading a number from the input is taken, and runs.
    const taken = await api('POST', `/v1/runs/${runId}/approval`, {
      decision: 'modify',
      edits: [{ op: 'add_step', step: { ...pause, parameters: { ms: '{{ input.ms }}' } } }],
    });
    expect(taken.status).toBe(200);
    const done = await waitForRun(runId);
    expect([done.status, done.plan_version]).toEqual(['completed', 2]);
    expect(Object.keys(done.step_results).sort()).toEqual(['a', 'pause']);
  });

  it('refuses a whole edited plan the same way, and the plan as it was can still be approved', async () => {
    const runId = await awaitingRun();
    const plan = (await api('GET', `/v1/runs/${runId}/plans/1`)).body as { steps: Json[] };
    const edited = {
      ...plan,
      steps: [...plan.steps, { id: 'pause', action: 'demo.sleep', parameters: { ms: '{{ input.wait }}' } }],
    };
    const refused = await api('POST', `/v1/runs/${runId}/approval`, { decision: 'modify', plan: edited });
    expect(refused.status).toBe(422);
    expect(refused.body.error.details.errors).toEqual([finding]);
    expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('awaiting_approval');
    expect((await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' })).status).toBe(200);
    const done = await waitForRun(runId);
    expect([done.status, done.plan_version, Object.keys(done.step_results)]).toEqual(['completed', 1, ['a']]);
  });
});
