import { afterEach, describe, expect, it } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { api, events, startRun, waitForRun } from '../workers/helpers';
import { describedEcho as echo } from '../fixtures/echo-steps';

const plan = (steps: unknown[]) => JSON.stringify({ steps });
/** A streamed NDJSON answer (seed 003): one `{"type":"step"}` line per step, in pieces. */
const ndjson = (steps: unknown[]) => steps.map((step) => `${JSON.stringify({ type: 'step', step })}\n`);

afterEach(() => setLlmFetch(null));

describe('runs from a goal, planned by the LLM inside the run', () => {
  it('starts in planning, then runs the plan the model wrote, counting planning tokens', async () => {
    const llm = scriptedLlm([
      { stream: ndjson([echo('a'), echo('b', ['a'], { from: '{{ steps.a.output.id }}' })]) },
    ]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', { goal: 'echo twice', config: { execution_mode: 'sequential' } });
    expect(r.status).toBe(201);
    expect(['planning', 'running']).toContain(r.body.status); // the first step may already have streamed in
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.step_results.b).toEqual({ from: 'a' });
    expect(run.token_usage.total_tokens).toBeGreaterThan(0); // planning's usage, reported by the stream
    expect(llm.sent[0]!.body.messages.at(-1)!.content).toContain('echo twice');
    const types = (await events(r.body.run_id)).map((e) => e.event_type);
    // Streaming execution: the first step was scheduled before the plan was complete.
    expect(types.indexOf('StepStreamed')).toBe(1);
    expect(types.indexOf('StepScheduled')).toBeLessThan(types.indexOf('PlanAuthored'));
  });

  it('plans in one piece (no streaming) when the run needs approval first', async () => {
    setLlmFetch(scriptedLlm([plan([echo('a')])]).fetch);
    const r = await api('POST', '/v1/runs', { goal: 'echo once', config: { require_plan_approval: true } });
    await waitForRun(r.body.run_id, (x) => x.status === 'awaiting_approval');
    const types = (await events(r.body.run_id)).map((e) => e.event_type);
    expect(types).toEqual(['RunCreated', 'PlanAuthored', 'PlanValidated', 'ApprovalRequested']);
  });

  it('fails the run with planning_failed and the trace when no model produces a valid plan', async () => {
    setLlmFetch(scriptedLlm(['no json here', 'still nothing']).fetch);
    const r = await api('POST', '/v1/runs', { goal: 'plan my holiday' });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('planning_failed');
    // What the failed attempts spent is counted, as a plan's would have been.
    const trace = run.error.details.planning_trace as { tokens?: { prompt: number; completion: number } }[];
    const spent = trace.reduce((n, a) => n + (a.tokens ? a.tokens.prompt + a.tokens.completion : 0), 0);
    expect(spent).toBeGreaterThan(0);
    expect(run.token_usage.total_tokens).toBe(spent);
    const ended = (await events(r.body.run_id)).at(-1)!;
    expect(ended).toMatchObject({ event_type: 'RunTerminated', payload: { tokens: expect.any(Object) } });
    // The run exists and has had no plan: its versions are none, not a 404.
    const versions = await api('GET', `/v1/runs/${r.body.run_id}/plans`);
    expect(versions.status).toBe(200);
    expect(versions.body).toEqual({ run_id: r.body.run_id, versions: [] });
    expect((await api('GET', '/v1/runs/run_nosuchrun0000/plans')).status).toBe(404);
    // Nothing asked of a run without a plan is a 5xx.
    const id = r.body.run_id as string;
    const asks: [string, string, unknown?][] = [
      ['POST', `/v1/runs/${id}/replan`, { reason: 'try again' }],
      ['POST', `/v1/runs/${id}/rollback`, { version: 1 }],
      ['POST', `/v1/runs/${id}/input`, { input: { x: 1 } }],
      ['POST', `/v1/runs/${id}/approval`, { decision: 'approve' }],
      ['POST', `/v1/runs/${id}/cancel`, {}],
      ['GET', `/v1/runs/${id}/plans/1`],
      ['GET', `/v1/runs/${id}/plans/1/diff/2`],
      ['GET', `/v1/runs/${id}/state?at=1`],
      ['GET', `/v1/runs/${id}/status?include_details=true`],
      ['GET', `/v1/runs/${id}/planning`],
    ];
    for (const [method, path, body] of asks) {
      const res = await api(method, path, body);
      expect(`${method} ${path.slice(path.lastIndexOf(id) + id.length)} ${res.status}`).toMatch(/ [24]\d\d$/);
    }
  });

  it('plans the goal again when a run whose planning failed is retried', async () => {
    const llm = scriptedLlm(['no json here', 'still nothing', plan([echo('a')])]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'plan my holiday',
      config: { require_plan_approval: true },
    });
    const failed = await waitForRun(r.body.run_id);
    expect(failed.error.code).toBe('planning_failed');
    // A step of a run that has no plan: refused, saying why.
    const step = await api('POST', `/v1/runs/${r.body.run_id}/retry`, { step_id: 'a' });
    expect(step.status).toBe(404);
    expect(step.body.error.message).toBe(`Run ${r.body.run_id} has no plan, so no step "a"`);
    const retried = await api('POST', `/v1/runs/${r.body.run_id}/retry`, {});
    expect(retried.status).toBe(200);
    const run = await waitForRun(r.body.run_id, (x) => x.status === 'awaiting_approval');
    expect(run.plan.steps.map((x: { id: string }) => x.id)).toEqual(['a']);
    const types = (await events(r.body.run_id)).map((e) => e.event_type);
    expect(types.slice(types.indexOf('RunTerminated'))).toEqual([
      'RunTerminated',
      'RunResumed',
      'PlanAuthored',
      'PlanValidated',
      'ApprovalRequested',
    ]);
  });

  it('gives up on a stream that goes silent for planning_timeout_s, instead of waiting on it', async () => {
    const llm = scriptedLlm([{ stream: ndjson([echo('a')]), stall: true }]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'echo, then stall',
      config: { execution_mode: 'sequential', planning_timeout_s: 0.5 },
    });
    // A stream that ran a step cannot be asked again from the start: the run fails, saying why.
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('planning_failed');
    expect(run.error.message).toMatch(
      /The plan stream failed after 1 accepted step: timeout: LLM at \S+ sent nothing for 0\.5 s after its headers/,
    );
    // The stalled stream never reported its usage: what it sent and streamed is estimated (4 characters
    // a token), marked so in its trace, and counted.
    const estimated = {
      prompt: Math.ceil(llm.sent[0]!.body.messages.reduce((n, m) => n + m.content.length, 0) / 4),
      completion: Math.ceil(ndjson([echo('a')]).join('').length / 4),
      estimated: true,
    };
    expect(run.error.details.planning_trace[0].tokens).toEqual(estimated);
    expect(run.token_usage.total_tokens).toBe(estimated.prompt + estimated.completion);
    // The provenance row (D1) says so too, as the planning tab reads it.
    const planning = await api('GET', `/v1/runs/${r.body.run_id}/planning`);
    expect(planning.body.attempts[0]).toMatchObject({
      prompt_tokens: estimated.prompt,
      completion_tokens: estimated.completion,
      tokens_estimated: true,
    });
    expect(run.step_results.a).toEqual({ id: 'a' });
  });

  it('classifies an error sent inside the plan stream by what it says: a rate limit before any step is planned again in one piece', async () => {
    const rateLimit = { message: 'Rate limit reached for m', type: 'tokens', code: 'rate_limit_exceeded' };
    const llm = scriptedLlm([{ stream: [], error: rateLimit }, plan([echo('a')])]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', { goal: 'echo once', config: { execution_mode: 'sequential' } });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(llm.sent.map((s) => s.body.stream === true)).toEqual([true, false]);
    const planning = await api('GET', `/v1/runs/${r.body.run_id}/planning`);
    expect(planning.body.attempts[0]).toMatchObject({
      outcome: 'call_error',
      error: expect.stringMatching(
        /^llm_rate_limited: LLM at \S+ \(model \S+\) sent an error inside its 200 stream: Rate limit reached for m \(type tokens, code rate_limit_exceeded\)$/,
      ),
    });
  });

  it('fails a run whose plan stream breaks off with an overload after a step ran, naming the error as the server said it', async () => {
    const overloaded = { message: 'The model is overloaded', type: 'overloaded_error' };
    setLlmFetch(scriptedLlm([{ stream: ndjson([echo('a')]), error: overloaded }]).fetch);
    const r = await api('POST', '/v1/runs', { goal: 'echo', config: { execution_mode: 'sequential' } });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('planning_failed');
    expect(run.error.message).toMatch(
      /^The plan stream failed after 1 accepted step: llm_server_error: LLM at \S+ \(model \S+\) sent an error inside its 200 stream: The model is overloaded \(type overloaded_error\)$/,
    );
  });

  it('counts a stream it cuts off (an invalid first step) toward the token budget, which then stops planning', async () => {
    const bad = { ...echo('a'), action: 'no.such.tool' };
    const llm = scriptedLlm([{ stream: ndjson([bad, echo('b')]) }, plan([echo('a')])]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', { goal: 'plan my holiday', config: { token_budget: 50 } });
    const run = await waitForRun(r.body.run_id);
    // The stream was read up to its invalid step and no further, so its usage never came: estimated.
    const trace = run.error.details.planning_trace as { tokens?: { estimated?: true } }[];
    expect(trace[0]!.tokens?.estimated).toBe(true);
    const spent = run.token_usage.total_tokens as number;
    expect(spent).toBeGreaterThanOrEqual(50);
    expect(run.error.code).toBe('planning_failed');
    expect(run.error.message).toContain(`planning spent ${spent} tokens, the token budget is 50`);
    expect(llm.sent).toHaveLength(1); // no repair or retry past the budget
  });

  it('lists no version and serves none while the plan still streams in', async () => {
    const llm = scriptedLlm([{ stream: ndjson([echo('a'), echo('b', ['a'])]), gap_ms: 400 }]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'echo slowly',
      config: { execution_mode: 'sequential' },
    });
    const id = r.body.run_id as string;
    await waitForRun(id, (x) => x.plan?.steps?.length >= 1);
    const during = await api('GET', `/v1/runs/${id}/plans`);
    const first = await api('GET', `/v1/runs/${id}/plans/1`);
    const streamingStill = (await api('GET', `/v1/runs/${id}`)).body.status !== 'completed';
    expect(during.body.versions).toEqual([]);
    expect(first.status).toBe(404);
    expect(streamingStill).toBe(true);
    await waitForRun(id);
    // Once authored, version 1 is the whole plan (a partial one was not cached on the way).
    const after = await api('GET', `/v1/runs/${id}/plans/1`);
    expect(after.body.steps.map((s: { id: string }) => s.id)).toEqual(['a', 'b']);
  });
});

describe('a model answering in seed 003’s shape', () => {
  it('runs its steps in the order listed, with no dependencies given, and ends with the finish result', async () => {
    const answer = JSON.stringify({
      planId: 'p',
      steps: [
        { id: 's1', type: 'tool', toolId: 'demo.echo', input: { n: 1 } },
        { id: 's2', type: 'tool', toolId: 'demo.echo', input: { n: 2 } },
        { id: 'done', type: 'finish', input: { summary: 'two echoes' } },
      ],
    });
    // Streamed as a whole JSON object, not NDJSON: read from the stream, no second request.
    const llm = scriptedLlm([{ stream: [answer.slice(0, 50), answer.slice(50)] }]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', { goal: 'echo twice', config: { execution_mode: 'parallel' } });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(llm.sent).toHaveLength(1);
    expect(run.plan.steps.map((s: { id: string; dependencies: string[] }) => [s.id, s.dependencies])).toEqual(
      [
        ['s1', []],
        ['s2', ['s1']],
      ],
    );
    expect(run.final_output).toEqual({ summary: 'two echoes' });
  });
});

describe('goal runs take the planning options of POST /v1/plans', () => {
  it('asks the given model at the given temperature with the given prompt, for the plan and its revision', async () => {
    const key = `options-${Date.now()}`;
    const llm = scriptedLlm([
      {
        stream: ndjson([
          echo('a'),
          {
            id: 'f',
            action: 'demo.flaky',
            parameters: { fail_times: 9, key, permanent: true },
            dependencies: ['a'],
          },
        ]),
      },
      plan([echo('a'), echo('instead', ['a'])]),
    ]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'echo, then something',
      planning_model: 'chosen-model',
      temperature: 0.1,
      planning_prompt: 'PLAN THIS: {{ goal }} with {{ tools }}',
      success_criteria: 'two echoes',
      config: { retry_failed_steps: 0 },
    });
    expect(r.status).toBe(201);
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(llm.sent.map((x) => [x.body.model, x.body.temperature])).toEqual([
      ['chosen-model', 0.1],
      ['chosen-model', 0.1],
    ]);
    expect(llm.sent[0]!.body.messages.map((m) => m.content).join('\n')).toContain(
      'PLAN THIS: echo, then something',
    );
    expect(run.plan.success_criteria).toBe('two echoes');
  });

  it('structured_output: false asks for plain text; n_best and require_fallbacks are taken', async () => {
    const llm = scriptedLlm([
      plan([{ ...echo('a'), fallback_action: 'demo.echo' }]),
      plan([{ ...echo('a'), fallback_action: 'demo.echo' }]),
    ]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'echo once',
      structured_output: false,
      n_best: 2,
      require_fallbacks: true,
      config: { require_plan_approval: true },
    });
    expect(r.status).toBe(201);
    await waitForRun(r.body.run_id, (x) => x.status === 'awaiting_approval');
    expect(llm.sent).toHaveLength(2); // two candidates
    expect(llm.sent.every((x) => x.body.response_format === undefined)).toBe(true);
  });

  it('refuses a bad planning option with 400 naming it', async () => {
    const r = await api('POST', '/v1/runs', { goal: 'echo once', temperature: 7 });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body.error)).toContain('temperature');
  });
});

describe('planned goal runs revise by default (seed 000: allow_revision defaults to true)', () => {
  const failing = (key: string) => ({
    id: 'flaky',
    description: 'fails for good',
    action: 'demo.flaky',
    parameters: { fail_times: 99, key, permanent: true },
    dependencies: ['a'],
  });

  it('revises a goal run’s failed step with no on_step_failure given', async () => {
    const key = `goal-default-${Date.now()}`;
    const llm = scriptedLlm([
      { stream: ndjson([echo('a'), failing(key)]) },
      plan([echo('a'), echo('instead', ['a'])]), // the revision
    ]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'echo, then something',
      config: { retry_failed_steps: 0 },
    });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.revision_count).toBe(1);
    expect(run.step_results.instead).toEqual({ id: 'instead' });
    expect(run.steps.a.attempts).toBe(1);
  });

  it('revises a step that fails while the plan still streams in once the stream ends, and runs nothing twice', async () => {
    const key = `goal-midstream-${Date.now()}`;
    const llm = scriptedLlm([
      // The failing step runs and fails while `after` is still on its way (a slow model).
      { stream: ndjson([echo('a'), failing(key), echo('after', ['flaky'])]), gap_ms: 150 },
      plan([echo('a'), echo('instead', ['a'])]), // the revision
    ]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'echo, then something',
      config: { retry_failed_steps: 0 },
    });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.plan_version).toBe(2);
    expect(run.revision_count).toBe(1);
    expect(run.step_results).toEqual({ a: { id: 'a' }, instead: { id: 'instead' } });
    const log = await events(r.body.run_id);
    const types = log.map((e) => e.event_type);
    expect(types.filter((t) => t === 'PlanAuthored')).toHaveLength(1);
    expect(types.filter((t) => t === 'PlanUpdated')).toHaveLength(1);
    expect(types.indexOf('PlanAuthored')).toBeLessThan(types.indexOf('PlanUpdated'));
    const invoked = log.filter((e) => e.event_type === 'ToolInvoked').map((e) => e.payload.step_id);
    expect(invoked.sort()).toEqual(['a', 'flaky', 'instead']);
  });

  it('revises in the light of new information that came while the plan streamed in, once it is whole', async () => {
    const llm = scriptedLlm([
      { stream: ndjson([echo('a'), echo('b', ['a'])]), gap_ms: 400 },
      plan([echo('a'), echo('oslo', ['a'], { city: '{{ state.city }}' })]), // the revision
    ]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'echo, then see',
      config: { execution_mode: 'sequential' },
    });
    const id = r.body.run_id as string;
    await waitForRun(id, (x) => x.step_statuses?.a === 'completed');
    const sent = await api('POST', `/v1/runs/${id}/input`, { input: { city: 'Oslo' } });
    expect(sent.status).toBe(200);
    const run = await waitForRun(id);
    expect(run.status).toBe('completed');
    expect(run.plan_version).toBe(2);
    expect(run.step_results.oslo).toEqual({ city: 'Oslo' });
    const log = await events(id);
    const types = log.map((e) => e.event_type);
    const requests = log.filter((e) => e.event_type === 'RevisionRequested');
    expect(requests.map((e) => [e.payload.trigger, e.payload.deferred ?? false])).toEqual([
      ['new_information', true],
      ['new_information', false],
    ]);
    // Asked for real only once the stream's plan was authored: one PlanAuthored, then the new version.
    expect(types.filter((t) => t === 'PlanAuthored')).toHaveLength(1);
    expect(types.lastIndexOf('RevisionRequested')).toBeGreaterThan(types.indexOf('PlanAuthored'));
    expect(types.indexOf('PlanUpdated')).toBeGreaterThan(types.lastIndexOf('RevisionRequested'));
  });

  it('keeps what the caller chose, and a submitted plan still aborts on a failure', async () => {
    const key = `goal-abort-${Date.now()}`;
    setLlmFetch(scriptedLlm([{ stream: ndjson([echo('a'), failing(key)]) }]).fetch);
    const chosen = await api('POST', '/v1/runs', {
      goal: 'echo, then something',
      config: { retry_failed_steps: 0, on_step_failure: 'abort' },
    });
    const aborted = await waitForRun(chosen.body.run_id);
    expect(aborted.status).toBe('failed');
    expect(aborted.revision_count).toBe(0);
    const submitted = await waitForRun(
      await startRun({ steps: [echo('a'), failing(`${key}-plan`)] }, { retry_failed_steps: 0 }),
    );
    expect(submitted.status).toBe('failed');
    expect(submitted.revision_count).toBe(0);
  });
});

describe('revision through the planner', () => {
  it('insert_recovery puts the planner’s recovery steps in the failed step’s place, its dependents rewired', async () => {
    const key = `recover-${Date.now()}`;
    // The model answers with recovery steps only (new ids); the rest of the plan is not repeated.
    const llm = scriptedLlm([plan([echo('retry_by_hand', [], { attempts: 7 })])]);
    setLlmFetch(llm.fetch);
    const runId = await startRun(
      {
        steps: [
          echo('a'),
          {
            id: 'pay',
            action: 'demo.flaky',
            parameters: { fail_times: 99, key, permanent: true },
            dependencies: ['a'],
          },
          echo('after', ['pay'], { paid: '{{ steps.pay.output.attempts }}' }),
          echo('other', ['a']),
        ],
      },
      { on_step_failure: 'replan', revision_strategy: 'insert_recovery', retry_failed_steps: 0 },
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.plan.steps.map((s: { id: string }) => s.id)).toEqual(['a', 'retry_by_hand', 'after', 'other']);
    const byId = Object.fromEntries(run.plan.steps.map((s: { id: string }) => [s.id, s]));
    expect(byId.retry_by_hand.dependencies).toEqual(['a']); // what the failed step waited for
    expect(byId.after.dependencies).toEqual(['retry_by_hand']);
    expect(byId.after.parameters).toEqual({ paid: '{{ steps.retry_by_hand.output.attempts }}' });
    expect(run.step_results.after).toEqual({ paid: 7 });
    expect(run.steps.a.attempts).toBe(1);
    expect(llm.sent[0]!.body.messages.at(-1)!.content).toContain('Write recovery steps only');
  });

  it('replans the rest of the plan when a step fails, keeping completed work, as version 2', async () => {
    const key = `replan-${Date.now()}`;
    const revised = plan([echo('a'), echo('fixed', ['a'])]);
    setLlmFetch(scriptedLlm([revised]).fetch);
    const runId = await startRun(
      {
        steps: [
          echo('a'),
          {
            id: 'flaky',
            action: 'demo.flaky',
            parameters: { fail_times: 99, key, permanent: true },
            dependencies: ['a'],
          },
        ],
      },
      { on_step_failure: 'replan', retry_failed_steps: 0 },
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.revision_count).toBe(1);
    expect(run.plan_version).toBe(2);
    expect(run.step_results).toMatchObject({ a: { id: 'a' }, fixed: { id: 'fixed' } });
    expect(run.steps.a.attempts).toBe(1);
    const versions = await api('GET', `/v1/runs/${runId}/plans`);
    expect(versions.body.versions.map((v: { version: number }) => v.version)).toEqual([1, 2]);
    const diff = await api('GET', `/v1/runs/${runId}/plans/1/diff/2`);
    expect(diff.body.removed).toEqual(['flaky']);
    expect(diff.body.added.map((s: { id: string }) => s.id)).toEqual(['fixed']);
    const types = (await events(runId)).map((e) => e.event_type);
    expect(types).toContain('RevisionRequested');
    expect(types).toContain('PlanUpdated');
  });

  it('revises on a user request while the run goes on', async () => {
    setLlmFetch(
      scriptedLlm([
        plan([
          echo('a'),
          { id: 'wait', action: 'demo.sleep', parameters: { ms: 10 }, dependencies: ['a'] },
          echo('extra', ['wait']),
        ]),
      ]).fetch,
    );
    const runId = await startRun({
      steps: [echo('a'), { id: 'wait', action: 'demo.sleep', parameters: { ms: 300 }, dependencies: ['a'] }],
    });
    await waitForRun(runId, (r) => r.step_statuses.wait === 'running');
    const r = await api('POST', `/v1/runs/${runId}/replan`, { reason: 'also echo at the end' });
    expect(r.status).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(Object.keys(run.step_results).sort()).toEqual(['a', 'extra', 'wait']);
    expect(run.revision_count).toBe(1);
  });

  it('counts the judge’s tokens in the run’s usage', async () => {
    const llm = scriptedLlm([
      {
        content: JSON.stringify({ ok: true, reason: 'fine' }),
        usage: { prompt_tokens: 40, completion_tokens: 5 },
      },
    ]);
    setLlmFetch(llm.fetch);
    const runId = await startRun({ steps: [{ ...echo('a'), expected_output: 'an id' }] });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(llm.sent).toHaveLength(1);
    expect(run.token_usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 5, total_tokens: 45 });
    const reflection = (await events(runId)).find((e) => e.event_type === 'ReflectionAdded')!;
    expect(reflection.payload.tokens).toEqual({ prompt: 40, completion: 5 });
  });

  it('revises when a step’s output does not match its expected_output', async () => {
    const llm = scriptedLlm([
      JSON.stringify({ ok: false, reason: 'the output has no items' }), // the judge
      plan([echo('a'), echo('again', ['a'], { items: ['found'] })]), // the revision
    ]);
    setLlmFetch(llm.fetch);
    const runId = await startRun({
      steps: [{ ...echo('a'), expected_output: 'a list of items', parameters: {} }, echo('b', ['a'])],
    });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.revision_count).toBe(1);
    const types = (await events(runId)).map((e) => e.event_type);
    expect(types).toContain('ReflectionAdded');
    expect(types).toContain('RevisionRequested');
    expect(run.step_results.again).toEqual({ items: ['found'] });
    expect(llm.sent[0]!.body.messages[1]!.content).toContain('Expected output: a list of items');
  });
});

describe('Plan → Act → Reflect (strategy par)', () => {
  it('a goal run with strategy par is planned as par and reflects after every step', async () => {
    const llm = scriptedLlm([
      { stream: ndjson([echo('a'), echo('b', ['a'])]) },
      JSON.stringify({ ok: true, reason: 'a on track' }),
      JSON.stringify({ ok: true, reason: 'b met the criteria' }),
    ]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'echo twice',
      success_criteria: 'two echoes',
      config: { strategy: 'par', execution_mode: 'sequential' },
    });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.plan.strategy).toBe('par');
    const reflections = (await events(r.body.run_id)).filter((e) => e.event_type === 'ReflectionAdded');
    expect(reflections.map((e) => e.payload.step_id)).toEqual(['a', 'b']);
    expect(llm.sent[1]!.body.messages[1]!.content).toContain('two echoes');
  });

  it('reflects on every step against the exit criteria, and a failing reflection yields a new plan version', async () => {
    const llm = scriptedLlm([
      JSON.stringify({ ok: true, reason: 'on track' }), // reflection on a
      JSON.stringify({ ok: false, reason: 'b missed the criteria' }), // reflection on b
      plan([echo('a'), echo('b', ['a']), echo('c', ['b'])]), // the new version
      JSON.stringify({ ok: true, reason: 'criteria met' }), // reflection on c
    ]);
    setLlmFetch(llm.fetch);
    const runId = await startRun({
      strategy: 'par',
      success_criteria: 'three echoes',
      steps: [echo('a'), echo('b', ['a'])],
    });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.plan_version).toBe(2);
    const reflections = (await events(runId)).filter((e) => e.event_type === 'ReflectionAdded');
    expect(reflections.map((e) => e.payload.step_id)).toEqual(['a', 'b', 'c']);
    expect(llm.sent[0]!.body.messages[1]!.content).toContain('three echoes');
  });
});

describe('iterative runs: the plan as context, a turn at a time (seed 004)', () => {
  it('extends the plan each turn from the state so far, and ends when a turn changes nothing', async () => {
    const llm = scriptedLlm([
      plan([echo('look')]), // the first turn
      plan([echo('look'), echo('act', ['look'], { saw: '{{ steps.look.output.id }}' })]), // extend
      plan([echo('look'), echo('act', ['look'], { saw: '{{ steps.look.output.id }}' })]), // unchanged: done
    ]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'look, then act on it',
      config: { strategy: 'iterative' },
    });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.step_results).toEqual({ look: { id: 'look' }, act: { saw: 'look' } });
    expect(run.revision_count).toBe(0);
    const evs = await events(r.body.run_id);
    expect(evs.filter((e) => e.event_type === 'RevisionRequested').map((e) => e.payload.trigger)).toEqual([
      'next_turn',
      'next_turn',
    ]);
    expect(evs.filter((e) => e.event_type === 'PlanUpdated').map((e) => e.payload.changed_steps)).toEqual([
      ['act'],
      [],
    ]);
    // Each turn's prompt carries the current plan and what its steps returned.
    expect(llm.sent[2]!.body.messages[1]!.content).toContain('result: {"saw":"look"}');
  });
});

describe('an iterative run its max_steps stops', () => {
  it('ends success saying so, once its plan has max_steps steps, all done — without asking the model for a plan it must refuse', async () => {
    const grown = (n: number) =>
      plan(Array.from({ length: n }, (_, i) => echo(`s${i}`, i ? [`s${i - 1}`] : [])));
    // A model that would go on adding a step every turn.
    const llm = scriptedLlm([grown(1), grown(2), grown(3), grown(4), grown(4)]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'keep going',
      config: { strategy: 'iterative', max_steps: 3 },
    });
    const run = await waitForRun(r.body.run_id);
    expect([run.status, run.termination_reason, run.error]).toEqual(['completed', 'success', undefined]);
    expect(Object.keys(run.step_results)).toEqual(['s0', 's1', 's2']);
    expect(run.limit_reached).toEqual({
      setting: 'max_steps',
      value: 3,
      turns: 2,
      message:
        'Stopped after 2 turns: the plan has max_steps (3) steps, all completed, so another turn could add none; raise max_steps to let the model go on',
    });
    // The first plan and two turns: no third turn whose plan would be refused as too_many_steps.
    expect(llm.sent).toHaveLength(3);
    const end = (await events(r.body.run_id)).at(-1)!;
    expect(end).toMatchObject({
      event_type: 'RunTerminated',
      payload: { reason: 'success', limit: run.limit_reached },
    });
  });

  it('says no limit when its model ends the turns itself', async () => {
    const llm = scriptedLlm([plan([echo('a')]), plan([echo('a')])]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'once',
      config: { strategy: 'iterative', max_steps: 3 },
    });
    const run = await waitForRun(r.body.run_id);
    expect([run.status, run.limit_reached]).toEqual(['completed', null]);
  });
});

describe('staged runs (seed 002 multi-stage policies)', () => {
  it('plans and runs each stage in order with its own instructions and tools, with stage events', async () => {
    const llm = scriptedLlm([
      plan([echo('facts')]), // stage gather
      plan([echo('facts'), echo('answer', ['facts'], { from: '{{ steps.facts.output.id }}' })]), // stage answer
    ]);
    setLlmFetch(llm.fetch);
    const stages = [
      { name: 'gather', prompt: 'Gather the facts.', tools: ['demo.echo'] },
      { name: 'answer', prompt: 'Answer from the facts.', tools: ['demo.'] },
    ];
    const r = await api('POST', '/v1/runs', {
      goal: 'answer a question',
      config: { strategy: 'staged', stages },
    });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.step_results.answer).toEqual({ from: 'facts' });
    const evs = await events(r.body.run_id);
    const stageEvents = evs
      .filter((e) => e.event_type.startsWith('Stage'))
      .map((e) => `${e.event_type}:${e.payload.stage}`);
    expect(stageEvents).toEqual([
      'StageStarted:gather',
      'StageCompleted:gather',
      'StageStarted:answer',
      'StageCompleted:answer',
    ]);
    const first = llm.sent[0]!.body.messages[1]!.content;
    expect(first).toContain('Stage gather: Gather the facts.');
    expect(first).toContain('demo.echo');
    expect(first).not.toContain('http.request');
    expect(llm.sent[1]!.body.messages[1]!.content).toContain('stage answer: Answer from the facts.');
    expect(run.goal).toBe('answer a question');
  });
});

describe('hierarchical goals', () => {
  it('plans steps with sub-plans and runs each sub-plan as a child run, rolling results up', async () => {
    setLlmFetch(
      scriptedLlm([
        JSON.stringify({
          steps: [
            {
              id: 'research',
              description: 'Research the topic',
              action: 'demo.echo',
              parameters: {},
              dependencies: [],
              subplan: { steps: [echo('search'), echo('read', ['search'])] },
            },
            echo('write', ['research'], { from: '{{ steps.research.output.final_output.id }}' }),
          ],
        }),
      ]).fetch,
    );
    const r = await api('POST', '/v1/runs', {
      goal: 'research and write',
      config: { strategy: 'hierarchical' },
    });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.plan.strategy).toBe('hierarchical');
    expect(run.step_results.research.subtask_results).toEqual({
      search: { id: 'search' },
      read: { id: 'read' },
    });
    expect(run.step_results.write).toEqual({ from: 'read' });
  });
});

describe('a goal run whose planning fails', () => {
  it('carries the planning trace its error message points to, attempt by attempt', async () => {
    setLlmFetch(scriptedLlm(['no json here', 'still nothing']).fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'plan my holiday',
      config: { require_plan_approval: true },
    });
    const run = await waitForRun(r.body.run_id);
    expect(run.error.code).toBe('planning_failed');
    expect(run.error.message).toContain('details.planning_trace');
    const trace = run.error.details.planning_trace as {
      planner: string;
      outcome: string;
      message?: string;
    }[];
    expect(trace.map((t) => [t.planner, t.outcome])).toEqual([
      ['llm', 'parse_error'],
      ['llm', 'parse_error'],
      ['rules', 'no_match'],
    ]);
    expect(trace[0]!.message).toContain('No JSON found');
    const terminated = (await events(r.body.run_id)).find((e) => e.event_type === 'RunTerminated')!;
    expect(terminated.payload.error.details.planning_trace).toHaveLength(3);
  });

  it('carries it when the streamed plan fails too', async () => {
    setLlmFetch(scriptedLlm([{ stream: ['no json here'] }, 'still nothing', 'nothing again']).fetch);
    const r = await api('POST', '/v1/runs', { goal: 'plan my holiday' });
    const run = await waitForRun(r.body.run_id);
    expect(run.error.code).toBe('planning_failed');
    // The message counts the stream's attempt with the two whole ones, as the trace lists them.
    expect(run.error.message).toMatch(/^Planning failed: 3 LLM attempts \(models: /);
    expect(run.error.details.planning_trace.length).toBeGreaterThan(0);
    // Every attempt is in the trace — the stream's first (its usage: 110) — and all of them counted.
    type Attempt = { attempt_id: string; tokens?: { prompt: number; completion: number } };
    const trace = run.error.details.planning_trace as Attempt[];
    expect(trace[0]!.tokens).toEqual({ prompt: 80, completion: 30 });
    const spent = trace.reduce((n, a) => n + (a.tokens ? a.tokens.prompt + a.tokens.completion : 0), 0);
    expect(spent).toBeGreaterThan(110);
    expect(run.token_usage.total_tokens).toBe(spent);
    // The planning tab's source lists the same attempts, though they produced no plan to find them by.
    const planning = await api('GET', `/v1/runs/${r.body.run_id}/planning`);
    expect(planning.body.plan_id).toBeNull();
    // (The rule planner's turn is in the trace too, not in the LLM attempts.)
    expect(planning.body.attempts).toHaveLength(trace.filter((a) => a.attempt_id).length);
    expect(planning.body.attempts.length).toBeGreaterThanOrEqual(2);
    expect(planning.body.attempts[0]).toMatchObject({
      prompt_tokens: 80,
      completion_tokens: 30,
      tokens_estimated: false,
    });
  });
});
