import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, events, inputsReceived, startRun, waitForRun } from './helpers';
import { echo } from '../fixtures/echo-steps';

const childPlan = { goal: 'child', steps: [echo('x'), echo('y', ['x'])] };

describe('agent.dispatch and plan.execute: child runs', () => {
  for (const mode of ['sequential', 'parallel'] as const) {
    it(`runs a plan as a child run whose result rolls up to the parent step (${mode})`, async () => {
      const runId = await startRun(
        {
          steps: [
            { id: 'child', action: 'agent.dispatch', parameters: { plan: childPlan } },
            {
              id: 'after',
              action: 'demo.echo',
              parameters: { got: '{{ steps.child.output.final_output }}' },
            },
          ],
        },
        { execution_mode: mode },
      );
      const run = await waitForRun(runId);
      expect(run.status).toBe('completed');
      const out = run.step_results.child;
      expect(out).toMatchObject({
        status: 'completed',
        success: true,
        subtask_results: { x: { id: 'x' }, y: { id: 'y' } },
      });
      expect(run.step_results.after).toEqual({ got: { id: 'y' } });
      const child = await api('GET', `/v1/runs/${out.run_id as string}`);
      expect(child.status).toBe(200);
      expect(child.body.status).toBe('completed');
    });
  }

  it('fails the parent step when the child run fails', async () => {
    const runId = await startRun(
      {
        steps: [
          {
            id: 'child',
            action: 'plan.execute',
            parameters: {
              plan: {
                steps: [{ id: 'bad', action: 'demo.flaky', parameters: { fail_times: 9, permanent: true } }],
              },
            },
          },
        ],
      },
      { retry_failed_steps: 0 },
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('failed');
    expect(run.steps.child.error.code).toBe('child_run_failed');
  });

  it('refuses a child plan with findings as a non-retryable step failure', async () => {
    const runId = await startRun(
      {
        steps: [
          {
            id: 'child',
            action: 'agent.dispatch',
            parameters: { plan: { steps: [{ id: 'a', action: 'no.such' }] } },
          },
        ],
      },
      { retry_failed_steps: 3 },
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('failed');
    expect(run.steps.child).toMatchObject({ attempts: 1, error: { code: 'invalid_plan' } });
  });
});

describe('seed 001 planning actions inside a plan', () => {
  it('plan.decompose (rule planner) → plan.execute → plan.status, end to end without an LLM', async () => {
    const runId = await startRun({
      steps: [
        { id: 'decompose', action: 'plan.decompose', parameters: { goal: 'echo hello then wait 10 ms' } },
        {
          id: 'execute',
          action: 'plan.execute',
          parameters: { plan: '{{ steps.decompose.output.plan }}', parallel: true, max_concurrent: 3 },
        },
        {
          id: 'status',
          action: 'plan.status',
          parameters: {
            plan: '{{ steps.decompose.output.plan }}',
            subtask_results: '{{ steps.execute.output.subtask_results }}',
            include_details: true,
          },
        },
      ],
    });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.decompose).toMatchObject({ success: true, subtask_count: 2 });
    expect(run.step_results.decompose.plan.subtasks).toHaveLength(2);
    expect(run.step_results.execute).toMatchObject({
      success: true,
      replan_count: 0,
      plan_status: { total: 2, completed: 2 },
    });
    expect(run.step_results.status).toMatchObject({
      status: { total: 2, completed: 2 },
      progress: 1,
      success: true,
    });
  });

  it('plan.execute without a plan fails with seed 001’s error text', async () => {
    const runId = await startRun(
      { steps: [{ id: 'x', action: 'plan.execute', parameters: { plan: null } }] },
      { retry_failed_steps: 0 },
    );
    const run = await waitForRun(runId);
    expect(run.steps.x.error.message).toBe(
      'No plan provided. Use plan.decompose first or provide plan parameter.',
    );
  });
});

describe('human.input', () => {
  it('pauses the run until someone answers; the answer is the step output', async () => {
    const runId = await startRun({
      steps: [
        { id: 'ask', action: 'human.input', parameters: { prompt: 'Which city?' } },
        { id: 'use', action: 'demo.echo', parameters: { city: '{{ steps.ask.output.city }}' } },
      ],
    });
    const waiting = await waitForRun(runId, (r) => r.status === 'awaiting_input');
    expect(waiting.step_statuses.ask).toBe('running');
    const requested = (await events(runId)).find((e) => e.event_type === 'InputRequested');
    expect(requested?.payload).toMatchObject({ step_id: 'ask', prompt: 'Which city?' });
    const r = await api('POST', `/v1/runs/${runId}/input`, { input: { city: 'Berlin' } });
    expect(r.status).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.use).toEqual({ city: 'Berlin' });
    expect(run.state).toEqual({});
  });

  it('takes one of two answers sent at once with step_id; the other is refused, not new information', async () => {
    const runId = await startRun({
      steps: [
        { id: 'ask', action: 'human.input', parameters: { prompt: 'Who signs off?' } },
        { id: 'wait', action: 'demo.sleep', parameters: { ms: 300 }, dependencies: ['ask'] },
      ],
    });
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    const answers = await Promise.all(
      ['alice', 'bob'].map((who) => api('POST', `/v1/runs/${runId}/input`, { input: who, step_id: 'ask' })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const refused = answers.find((a) => a.status === 409)!;
    expect(refused.body.error.details).toMatchObject({ reason: 'input_not_awaited', step_id: 'ask' });
    // Told what happened: the other answer was taken (not advised to send this as new information).
    // (and when: the run keeps when a person's question was answered)
    expect(refused.body.error.message).toMatch(
      /^Step "ask" was answered already at \d{4}-\d\d-\d\dT[\d:.]+Z, so this answer was not taken; run \S+ is \w+\.$/,
    );
    // No such step: 404, while the run still runs.
    expect((await api('POST', `/v1/runs/${runId}/input`, { input: 'x', step_id: 'nope' })).status).toBe(404);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    const received = (await events(runId)).filter((e) => e.event_type === 'InputReceived');
    expect(received).toHaveLength(1);
    expect(run.step_results.ask).toBe(received[0]!.payload.input);
  });
});

describe('human.input with a schema', () => {
  const refund = { type: 'object', properties: { refund: { type: 'boolean' } }, required: ['refund'] };

  it('refuses an answer that does not fit the schema, 400 naming the path, and keeps waiting for one that does', async () => {
    const runId = await startRun({
      steps: [
        { id: 'ask', action: 'human.input', parameters: { prompt: 'Refund?', schema: refund } },
        { id: 'use', action: 'demo.echo', parameters: { refund: '{{ steps.ask.output.refund }}' } },
      ],
    });
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    const requested = (await events(runId)).find((e) => e.event_type === 'InputRequested');
    expect(requested?.payload).toMatchObject({ step_id: 'ask', prompt: 'Refund?', schema: refund });

    const bad = await api('POST', `/v1/runs/${runId}/input`, { input: { refund: 'maybe' }, step_id: 'ask' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    expect(bad.body.error.details).toMatchObject({ reason: 'answer_does_not_fit', step_id: 'ask' });
    expect(bad.body.error.message).toMatch(
      /^The answer to step "ask" does not fit the schema its question gave: refund: /,
    );
    // Without step_id too: the answer to the waiting question is checked all the same.
    expect((await api('POST', `/v1/runs/${runId}/input`, { input: 'yes' })).status).toBe(400);
    expect(await inputsReceived(runId)).toEqual([]);
    expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('awaiting_input');

    const good = await api('POST', `/v1/runs/${runId}/input`, { input: { refund: true }, step_id: 'ask' });
    expect(good.status).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.use).toEqual({ refund: true });
  });

  it('is a validation finding when the schema is not one edgeplan can read', async () => {
    const r = await api('POST', '/v1/plans/validate', {
      plan: {
        steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'Ok?', schema: 'yes/no' } }],
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(false);
    expect(r.body.errors).toEqual([
      expect.objectContaining({ code: 'invalid_parameters', step_id: 'ask', path: ['parameters', 'schema'] }),
    ]);
  });
});

describe('human.input with a schema that refers to itself', () => {
  // `{"$ref": "#"}` converted, then recursed without end on every answer: POST /input answered 500.
  it.each([[{ $ref: '#' }], [{ allOf: [{ $ref: '#' }] }]])(
    'refuses the plan (422 invalid_plan) naming the field and what to change: %j',
    async (schema) => {
      const r = await api('POST', '/v1/runs', {
        plan: { steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'Ok?', schema } }] },
      });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('invalid_plan');
      expect(r.body.error.details.errors).toEqual([
        expect.objectContaining({
          code: 'invalid_parameters',
          step_id: 'ask',
          path: ['parameters', 'schema'],
          message: expect.stringContaining('its $ref leads back to itself') as unknown,
        }),
      ]);
    },
  );

  it('a $ref under properties is a schema as any other: a recursive answer is checked', async () => {
    const tree = { type: 'object', properties: { child: { $ref: '#' }, n: { type: 'number' } } };
    const runId = await startRun({
      steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'Tree?', schema: tree } }],
    });
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    const bad = await api('POST', `/v1/runs/${runId}/input`, {
      input: { child: { n: 'x' } },
      step_id: 'ask',
    });
    expect(bad.status).toBe(400);
    const good = await api('POST', `/v1/runs/${runId}/input`, { input: { child: { n: 1 } }, step_id: 'ask' });
    expect(good.status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
  });
});

describe('a person’s answer that never comes', () => {
  /** The step's stored deadline comes due, and the object wakes from its rows (an eviction) to its alarm. */
  async function passDeadline(runId: string, stepId: string): Promise<void> {
    await runInDurableObject(env.PLAN_RUN.getByName(runId), async (_i, state) => {
      state.storage.sql.exec(
        `UPDATE steps SET runtime = json_set(runtime, '$.deadline_at', ?) WHERE step_id = ?`,
        Date.now() - 1,
        stepId,
      );
      await state.storage.setAlarm(Date.now());
    });
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId))).toBe(true);
  }

  it('times out on its own 24 h, and the timeout names that limit, not the step_timeout', async () => {
    const DAY_MS = 24 * 3600 * 1000;
    const runId = await startRun(
      { steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'Anyone?' } }] },
      { step_timeout: 60, retry_failed_steps: 0 },
    );
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    const invoked = (await events(runId)).find((e) => e.event_type === 'ToolInvoked');
    expect(invoked?.payload.limit_ms).toBe(DAY_MS);
    // A day passes.
    await passDeadline(runId, 'ask');
    const run = await waitForRun(runId, (r) => r.step_statuses.ask !== 'running');
    expect(run.steps.ask).toMatchObject({ status: 'failed', latency_ms: DAY_MS });
    const returned = (await events(runId)).filter((e) => e.event_type === 'ToolReturned');
    expect(returned).toHaveLength(1);
    expect(returned[0]!.payload).toMatchObject({
      success: false,
      latency_ms: DAY_MS,
      error: { code: 'timeout', message: `Step "ask" attempt 1 timed out after ${DAY_MS} ms` },
    });
    // The wait is over: the run decides the failure (no retries here) and ends, not awaiting for good.
    const ended = await waitForRun(runId, (r) => r.status !== 'awaiting_input' && r.status !== 'running');
    expect(ended.status).toBe('failed');
    expect(ended.error?.message).toContain('timed out');
  });

  it('asks again when its step may be retried, and takes the answer to the second question', async () => {
    const runId = await startRun(
      { steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'Anyone?' }, retries: 1 }] },
      { step_timeout: 60, retry_delay: 0 },
    );
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    await passDeadline(runId, 'ask');
    await waitForRun(runId, (r) => r.status === 'awaiting_input' && r.steps.ask?.attempts === 2);
    const asked = (await events(runId)).filter((e) => e.event_type === 'InputRequested');
    expect(asked).toHaveLength(2);
    const answer = await api('POST', `/v1/runs/${runId}/input`, { input: 'me', step_id: 'ask' });
    expect(answer.status).toBe(200);
    const run = await waitForRun(runId, (r) => r.status === 'completed');
    expect(run.step_results.ask).toBe('me');
  });
});

describe('hierarchical plans', () => {
  it('runs a step’s sub-plan as a child run and rolls its results up to the step', async () => {
    const runId = await startRun({
      steps: [
        {
          id: 'research',
          action: 'demo.echo',
          description: 'Research topic',
          subplan: { steps: [echo('search'), echo('read', ['search']), echo('extract', ['read'])] },
        },
        {
          id: 'outline',
          action: 'demo.echo',
          parameters: { from: '{{ steps.research.output.final_output.id }}' },
        },
      ],
    });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.research.subtask_results).toMatchObject({
      search: { id: 'search' },
      extract: { id: 'extract' },
    });
    expect(run.step_results.outline).toEqual({ from: 'extract' });
  });
});
