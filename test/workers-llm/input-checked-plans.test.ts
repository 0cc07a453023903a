/**
 * A plan the model writes is held to the run's input as a caller's plan is: a whole `{{ input.… }}`
 * whose value the step's tool cannot take is a finding the repair prompt quotes to the model — which
 * reference, what the input holds, what the tool expects — so the person who approves the plan is not
 * shown a first step that must fail. Through the run's object and the scripted model, for a first plan
 * for a revision after a failed step, and for a child run (agent.dispatch) planned from a goal.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { api, waitForRun, type Json } from '../workers/helpers';
import { describedEcho as echo } from '../fixtures/echo-steps';

/** `edgeplan run --input wait=5s`: a string, which demo.sleep's `ms` (a number) cannot take. */
const input = { wait: '5s', ms: 1 };
const pause = (ms: string, deps: string[] = []) => ({
  id: 'pause',
  description: 'pause',
  action: 'demo.sleep',
  parameters: { ms },
  dependencies: deps,
});
const plan = (steps: unknown[]) => JSON.stringify({ steps });
const finding =
  'Step "pause": {{ input.wait }} is a string but parameters.ms of tool demo.sleep expects a number ' +
  "(as the run's input gives it)";

afterEach(() => setLlmFetch(null));

/** Creates a run planned from a goal by the scripted model, with the input above. */
async function goalRun(config: Json): Promise<string> {
  const r = await api('POST', '/v1/runs', { goal: 'hold the release', input, config });
  expect(r.status).toBe(201);
  return r.body.run_id as string;
}

describe("a model's plan is checked against the run's input", () => {
  it('quotes the mismatch back to the model, and the approver is shown the repaired plan', async () => {
    const llm = scriptedLlm([plan([pause('{{ input.wait }}')]), plan([pause('{{ input.ms }}')])]);
    setLlmFetch(llm.fetch);
    const runId = await goalRun({ require_plan_approval: true });
    const waiting = await waitForRun(runId, (r) => r.status === 'awaiting_approval');
    expect(waiting.plan_version).toBe(1);
    const shown = (await api('GET', `/v1/runs/${runId}/plans/1`)).body as { steps: Json[] };
    expect(shown.steps.map((s) => s.parameters)).toEqual([{ ms: '{{ input.ms }}' }]);
    // The second call is the repair: the model is told the reference, the input's kind, the tool's.
    expect(llm.sent).toHaveLength(2);
    const repair = llm.sent[1]!.body.messages.at(-1)!.content;
    expect(repair).toContain(`- bad_reference: ${finding}`);
    const trace = (await api('GET', `/v1/runs/${runId}/planning`)).body.attempts as Json[];
    expect(trace.map((a) => [a.outcome, (a.findings as Json[]).map((f) => f.code)])).toEqual([
      ['invalid', ['bad_reference']],
      ['ok', []],
    ]);
    expect((await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' })).status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
  });

  it('fails planning with the finding when the repairs run out, and nothing runs', async () => {
    const llm = scriptedLlm([plan([pause('{{ input.wait }}')]), plan([pause('{{ input.wait }}')])]);
    setLlmFetch(llm.fetch);
    const runId = await goalRun({ require_plan_approval: true });
    const run = await waitForRun(runId);
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('planning_failed');
    expect(run.error.message).toContain(`Last problem: bad_reference: ${finding}`);
    const trace = run.error.details.planning_trace as Json[];
    expect(trace.filter((t) => t.planner === 'llm').map((t) => t.findings)).toEqual([
      [{ code: 'bad_reference', message: finding, step_id: 'pause', path: ['parameters', 'ms'] }],
      [{ code: 'bad_reference', message: finding, step_id: 'pause', path: ['parameters', 'ms'] }],
    ]);
    expect((await api('GET', `/v1/runs/${runId}/plans`)).body.versions).toEqual([]);
  });

  it('never runs a streamed step that reads the input wrong: the plan is asked for again whole', async () => {
    const streamed = (step: unknown) => `${JSON.stringify({ type: 'step', step })}\n`;
    const llm = scriptedLlm([
      { stream: [streamed(pause('{{ input.wait }}'))] },
      plan([pause('{{ input.ms }}')]),
    ]);
    setLlmFetch(llm.fetch);
    const runId = await goalRun({});
    const done = await waitForRun(runId);
    expect([done.status, done.plan.steps[0].parameters]).toEqual(['completed', { ms: '{{ input.ms }}' }]);
    const log = (await api('GET', `/v1/runs/${runId}/events?limit=100`)).body.events as Json[];
    // Only the whole plan's step streamed in: the first answer's never reached the run.
    const streamedIn = log.filter((e) => e.event_type === 'StepStreamed');
    expect(streamedIn.map((e) => (e.payload as Json).step.parameters)).toEqual([{ ms: '{{ input.ms }}' }]);
    expect(done.steps.pause.attempts).toBe(1);
  });

  it('holds a plan POST /v1/plans makes for a goal with an input to it', async () => {
    const llm = scriptedLlm([plan([pause('{{ input.wait }}')]), plan([pause('{{ input.ms }}')])]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/plans', { goal: 'hold the release', input });
    expect(r.status).toBe(201);
    expect(r.body.plan.steps.map((s: Json) => s.parameters)).toEqual([{ ms: '{{ input.ms }}' }]);
    expect(r.body.planning_trace.map((t: Json) => t.outcome)).toEqual(['invalid', 'ok']);
    expect(llm.sent[1]!.body.messages.at(-1)!.content).toContain(`- bad_reference: ${finding}`);
  });

  it('holds a revision after a failed step to the same check', async () => {
    const flaky = {
      id: 'flaky',
      action: 'demo.flaky',
      parameters: { fail_times: 99, key: `input-check-${crypto.randomUUID()}`, permanent: true },
      dependencies: ['a'],
    };
    const llm = scriptedLlm([
      plan([echo('a'), pause('{{ input.wait }}', ['a'])]),
      plan([echo('a'), pause('{{ input.ms }}', ['a'])]),
    ]);
    setLlmFetch(llm.fetch);
    const created = await api('POST', '/v1/runs', {
      plan: { goal: 'hold the release', steps: [echo('a'), flaky] },
      input,
      config: {
        on_step_failure: 'replan',
        retry_failed_steps: 0,
        execution_mode: 'sequential',
      },
    });
    expect(created.status).toBe(201);
    const runId = created.body.run_id as string;
    const done = await waitForRun(runId);
    expect([done.status, done.plan_version, done.step_results.pause]).toEqual(['completed', 2, null]);
    const v2 = (await api('GET', `/v1/runs/${runId}/plans/2`)).body as { steps: Json[] };
    expect(v2.steps.map((s) => [s.id, s.parameters])).toEqual([
      ['a', { id: 'a' }],
      ['pause', { ms: '{{ input.ms }}' }],
    ]);
    expect(llm.sent).toHaveLength(2);
    expect(llm.sent[1]!.body.messages.at(-1)!.content).toContain(`- bad_reference: ${finding}`);
  });

  it("holds a child run planned from a goal to the child's input, as a run's own", async () => {
    // A child plans in its own object, streamed as a goal run without approval is (the test above).
    const streamed = (step: unknown) => `${JSON.stringify({ type: 'step', step })}\n`;
    const llm = scriptedLlm([
      { stream: [streamed(pause('{{ input.wait }}'))] },
      plan([pause('{{ input.ms }}')]),
    ]);
    setLlmFetch(llm.fetch);
    const dispatch = { goal: 'hold the release', input };
    const created = await api('POST', '/v1/runs', {
      plan: { steps: [{ id: 'child', action: 'agent.dispatch', parameters: dispatch }] },
    });
    expect(created.status).toBe(201);
    const done = await waitForRun(created.body.run_id as string);
    expect(done.status).toBe('completed');
    const childId = done.step_results.child.run_id as string;
    const child = (await api('GET', `/v1/runs/${childId}`)).body;
    expect([child.plan.steps[0].parameters, child.steps.pause.attempts]).toEqual([
      { ms: '{{ input.ms }}' },
      1,
    ]);
    const attempts = (await api('GET', `/v1/runs/${childId}/planning`)).body.attempts as Json[];
    expect(attempts.flatMap((a) => (a.findings as Json[]).map((f) => f.message))).toEqual([finding]);
  });
});
