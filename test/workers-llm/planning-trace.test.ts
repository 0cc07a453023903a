/**
 * The planning trace of a goal run (#13: "attempts, models, tokens, repairs"): `GET /v1/runs/:id/planning`
 * lists every LLM attempt behind the run's plan, a repaired answer included, from the D1 provenance.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { api, startRun, waitForRun, type Json } from '../workers/helpers';

afterEach(() => setLlmFetch(null));

describe('GET /v1/runs/:id/planning', () => {
  it('lists the attempts that planned a goal run: the invalid first answer and its repair', async () => {
    setLlmFetch(
      scriptedLlm([
        JSON.stringify({ steps: [{ id: 'a', action: 'no.such_tool', parameters: {}, dependencies: [] }] }),
        JSON.stringify({
          steps: [{ id: 'a', action: 'demo.echo', parameters: { ok: true }, dependencies: [] }],
        }),
      ]).fetch,
    );
    // Planned whole (a run awaiting approval does not stream), then approved.
    const r = await api('POST', '/v1/runs', { goal: 'echo ok', config: { require_plan_approval: true } });
    await waitForRun(r.body.run_id, (x) => x.status === 'awaiting_approval');
    await api('POST', `/v1/runs/${r.body.run_id}/approval`, { decision: 'approve' });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    const trace = await api('GET', `/v1/runs/${r.body.run_id}/planning`);
    expect(trace.status).toBe(200);
    expect(trace.body.plan_id).toBe(run.plan.id);
    const attempts = trace.body.attempts as Json[];
    expect(attempts.map((a) => [a.seq, a.retry, a.outcome, a.model])).toEqual([
      [1, 0, 'invalid', 'scripted-1'],
      [2, 1, 'ok', 'scripted-1'],
    ]);
    expect((attempts[0]!.findings as Json[]).map((f) => f.code)).toContain('unknown_tool');
    expect(attempts.every((a) => (a.prompt_tokens as number) > 0)).toBe(true);
  });

  it('sends a misspelt parameter back to the model, which repairs it, so the run never drops it', async () => {
    const sleep = (parameters: Json) => ({
      steps: [{ id: 'a', action: 'demo.sleep', parameters, dependencies: [] }],
    });
    const llm = scriptedLlm([
      JSON.stringify(sleep({ ms: 0, vlaue: 'kept' })),
      JSON.stringify(sleep({ ms: 0, value: 'kept' })),
    ]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'wait, then say kept',
      config: { require_plan_approval: true },
    });
    await waitForRun(r.body.run_id, (x) => x.status === 'awaiting_approval');
    await api('POST', `/v1/runs/${r.body.run_id}/approval`, { decision: 'approve' });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.step_results).toEqual({ a: 'kept' });
    const attempts = (await api('GET', `/v1/runs/${r.body.run_id}/planning`)).body.attempts as Json[];
    expect(attempts.map((a) => a.outcome)).toEqual(['invalid', 'ok']);
    const message =
      'Step "a": parameters.vlaue: unknown parameter "vlaue" (did you mean "value"?); tool demo.sleep takes ms, value';
    expect(attempts[0]!.findings).toEqual([
      { code: 'invalid_parameters', message, step_id: 'a', path: ['parameters', 'vlaue'] },
    ]);
    // The repair request tells the model what to fix.
    expect(llm.sent).toHaveLength(2);
    expect(llm.sent[1]!.body.messages.at(-1)!.content).toContain(`- invalid_parameters: ${message}`);
  });

  it('lists the attempts of a revision that failed beside those of the plan (their tokens count in the run)', async () => {
    const step = (id: string, action: string, parameters: Json, dependencies: string[] = []) => ({
      id,
      action,
      parameters,
      dependencies,
    });
    const line = (x: unknown) => `${JSON.stringify({ type: 'step', step: x })}\n`;
    setLlmFetch(
      scriptedLlm([
        {
          stream: [
            line(step('fetch', 'demo.echo', { v: 1 })),
            line(step('parse', 'demo.flaky', { fail_times: 50, key: 'trace-revision' }, ['fetch'])),
          ],
        },
        'no plan in this revision',
        'nor in its repair',
      ]).fetch,
    );
    const r = await api('POST', '/v1/runs', {
      goal: 'fetch then parse',
      config: { execution_mode: 'sequential' },
    });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('failed');
    expect(run.error.message).toMatch(/^Could not revise the plan/);
    const trace = await api('GET', `/v1/runs/${r.body.run_id}/planning`);
    const attempts = trace.body.attempts as Json[];
    expect(attempts.map((a) => [a.retry, a.outcome])).toEqual([
      [0, 'ok'],
      [0, 'parse_error'],
      [1, 'parse_error'],
    ]);
    const listed = attempts.reduce(
      (n, a) => n + (a.prompt_tokens as number) + (a.completion_tokens as number),
      0,
    );
    expect(listed).toBe(run.token_usage.total_tokens);
  });

  it('lists a plan stream’s failed attempt before the whole-plan request that planned after it', async () => {
    const invalid = { steps: [{ id: 'a', action: 'no.such_tool', parameters: {}, dependencies: [] }] };
    const valid = { steps: [{ id: 'a', action: 'demo.echo', parameters: { ok: true }, dependencies: [] }] };
    // The stream carries a whole plan naming no tool there is: asked again whole, the model plans.
    setLlmFetch(scriptedLlm([{ stream: [JSON.stringify(invalid)] }, JSON.stringify(valid)]).fetch);
    const r = await api('POST', '/v1/runs', { goal: 'echo ok' });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    const attempts = (await api('GET', `/v1/runs/${r.body.run_id}/planning`)).body.attempts as Json[];
    expect(attempts.map((a) => [a.seq, a.outcome === 'ok'])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(new Set(attempts.map((a) => a.planning_id)).size).toBe(1);
    const listed = attempts.reduce(
      (n, a) => n + (a.prompt_tokens as number) + (a.completion_tokens as number),
      0,
    );
    expect(listed).toBe(run.token_usage.total_tokens);
  });

  it('keeps the attempts of a planning that failed after a retry planned the run', async () => {
    const valid = { steps: [{ id: 'a', action: 'demo.echo', parameters: { ok: true }, dependencies: [] }] };
    setLlmFetch(scriptedLlm(['no json here', 'still nothing', JSON.stringify(valid)]).fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'plan my holiday',
      config: { require_plan_approval: true },
    });
    expect((await waitForRun(r.body.run_id)).error.code).toBe('planning_failed');
    expect((await api('POST', `/v1/runs/${r.body.run_id}/retry`, {})).status).toBe(200);
    await waitForRun(r.body.run_id, (x) => x.status === 'awaiting_approval');
    await api('POST', `/v1/runs/${r.body.run_id}/approval`, { decision: 'approve' });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    // The run's error is cleared and the failed rows name no plan: they are found by the run.
    const attempts = (await api('GET', `/v1/runs/${r.body.run_id}/planning`)).body.attempts as Json[];
    expect(attempts.map((a) => [a.retry, a.outcome])).toEqual([
      [0, 'parse_error'],
      [1, 'parse_error'],
      [0, 'ok'],
    ]);
    expect(new Set(attempts.map((a) => a.planning_id)).size).toBe(2);
    const listed = attempts.reduce(
      (n, a) => n + (a.prompt_tokens as number) + (a.completion_tokens as number),
      0,
    );
    expect(listed).toBe(run.token_usage.total_tokens);
  });

  it('is empty for a submitted plan, and 404 for no run', async () => {
    const id = await startRun({ goal: 'g', steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] });
    await waitForRun(id);
    const trace = await api('GET', `/v1/runs/${id}/planning`);
    expect(trace.status).toBe(200);
    expect(trace.body.attempts).toEqual([]);
    expect((await api('GET', '/v1/runs/run_nope/planning')).status).toBe(404);
  });
});
