/**
 * A child run's plan is held to the child's own input as POST /v1/runs holds a plan to its run's: a
 * whole `{{ input.… }}` its tool cannot take fails the parent's step at once (`invalid_plan`, naming
 * the reference), and no child run is created — not one that waits for an approval of a plan whose
 * step must fail, nor one whose step fails later. `agent.dispatch` and `plan.execute` alike.
 */
import { describe, expect, it } from 'vitest';
import { api, startRun, waitForRun } from './helpers';
import { childRunId } from '../../src/engine/child-run';

/** The child's plan, handed over whole (a parent resolves references written in its own parameters). */
const childPlan = {
  goal: 'pause',
  steps: [{ id: 'pause', action: 'demo.sleep', parameters: { ms: '{{ input.wait }}' } }],
};
const message =
  'The child plan has 1 finding(s): bad_reference: Step "pause": {{ input.wait }} is a string but ' +
  "parameters.ms of tool demo.sleep expects a number (as the run's input gives it)";

/** Runs one step `child` calling `action`, with the child's plan in the parent's input; the ended run. */
async function parentRun(action: string, parameters: Record<string, unknown>) {
  const runId = await startRun(
    { steps: [{ id: 'child', action, parameters }] },
    { retry_failed_steps: 2 },
    { child_plan: childPlan },
  );
  return { runId, run: await waitForRun(runId) };
}

async function childExists(runId: string): Promise<boolean> {
  const child = await childRunId({ run_id: runId, step_id: 'child', attempt: 1 });
  return (await api('GET', `/v1/runs/${child}`)).status !== 404;
}

describe("a child run's plan is checked against the child's input", () => {
  it('agent.dispatch: fails the step at once, naming the reference, and starts no child to approve', async () => {
    const { runId, run } = await parentRun('agent.dispatch', {
      plan: '{{ input.child_plan }}',
      input: { wait: '5s' },
      // Unchecked, the child would wait for a person to approve a step that must fail.
      config: { require_plan_approval: true },
    });
    expect(run.status).toBe('failed');
    expect(run.steps.child).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: { code: 'invalid_plan', message },
    });
    expect(await childExists(runId)).toBe(false);
  });

  it("plan.execute: the workflow's state is the child's input, checked the same way", async () => {
    const { runId, run } = await parentRun('plan.execute', {
      plan: '{{ input.child_plan }}',
      workflow: { state: { wait: '5s' } },
    });
    expect(run.status).toBe('failed');
    expect(run.steps.child).toMatchObject({ attempts: 1, error: { code: 'invalid_plan', message } });
    expect(await childExists(runId)).toBe(false);
  });

  it('runs the same child plan when its input gives what the tool takes', async () => {
    const { runId, run } = await parentRun('agent.dispatch', {
      plan: '{{ input.child_plan }}',
      input: { wait: 1 },
    });
    expect(run.status).toBe('completed');
    expect(run.step_results.child).toMatchObject({ status: 'completed', success: true });
    expect(await childExists(runId)).toBe(true);
  });
});
