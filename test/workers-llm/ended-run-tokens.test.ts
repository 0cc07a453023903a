/**
 * A run that ends while a planning or revision is still with the model: the calls that planning had
 * already had answered were paid for, and the planning trace lists them, so the run's `token_usage`
 * counts them too — on its `RunTerminated` — though the planning's own answer never comes.
 */
import { abortAllDurableObjects } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { describedEcho as echo } from '../fixtures/echo-steps';
import { api, events, startRun, waitForRun, type Json } from '../workers/helpers';

afterEach(() => setLlmFetch(null));

const plan = (steps: unknown[]) => JSON.stringify({ steps });
/** A streamed NDJSON answer (seed 003): one `{"type":"step"}` line per step. */
const ndjson = (steps: unknown[]) => steps.map((step) => `${JSON.stringify({ type: 'step', step })}\n`);

/** `fetch`, its answers' bodies cut when the call is aborted, as a real connection's are. */
function cutOnAbort(fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>) {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const res = await fetch(input, init);
    const reader = res.body!.getReader();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const signal = init?.signal;
        signal?.addEventListener('abort', () => controller.error(signal.reason), { once: true });
      },
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
    });
    return new Response(body, { headers: res.headers });
  };
}
/** A plan naming no tool there is: answered (its tokens spent), then repaired. */
const unknownTool = plan([{ ...echo('a'), action: 'demo.no_such_tool' }]);
const ask = { id: 'ask', action: 'human.input', parameters: { prompt: 'Ship it?' }, dependencies: ['a'] };

/** The planning trace's attempts and what they add up to, as the run would show it. */
async function traced(runId: string): Promise<{ attempts: Json[]; usage: Json }> {
  const attempts = (await api('GET', `/v1/runs/${runId}/planning`)).body.attempts as Json[];
  const sum = (k: string) => attempts.reduce((n, a) => n + (a[k] as number), 0);
  const usage = {
    prompt_tokens: sum('prompt_tokens'),
    completion_tokens: sum('completion_tokens'),
    total_tokens: sum('prompt_tokens') + sum('completion_tokens'),
  };
  return { attempts, usage };
}

async function cancel(runId: string): Promise<Json> {
  const r = await api('POST', `/v1/runs/${runId}/cancel`, { reason: 'changed my mind' });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return waitForRun(runId);
}

describe('a run that ends while its planning is with the model', () => {
  it('counts the answered calls of a planning it cancelled', async () => {
    const llm = scriptedLlm([unknownTool, { hang: true }]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', { goal: 'echo', config: { require_plan_approval: true } });
    expect(r.status).toBe(201);
    const runId = r.body.run_id as string;
    // The repair of the first answer is with the model.
    await vi.waitFor(() => expect(llm.sent).toHaveLength(2), { timeout: 5_000, interval: 20 });
    const run = await cancel(runId);
    expect(run.status).toBe('cancelled');
    const { attempts, usage } = await traced(runId);
    expect(attempts.map((a) => [a.outcome, (a.prompt_tokens as number) > 0])).toEqual([
      ['invalid', true],
      ['call_error', false],
    ]);
    expect(run.token_usage).toEqual(usage);
    const ended = (await events(runId)).at(-1)!;
    expect(ended.event_type).toBe('RunTerminated');
    expect(ended.payload.tokens).toEqual({
      prompt: usage.prompt_tokens,
      completion: usage.completion_tokens,
    });
    // The run replayed from its events says the same.
    expect((await api('GET', `/v1/runs/${runId}/state`)).body.token_usage).toEqual(usage);
  });

  it('counts what a streamed plan cut by the cancel had streamed, as its trace estimates it', async () => {
    // The model streams one step, then goes quiet: the run runs the step while the stream is open.
    const llm = scriptedLlm([{ stream: ndjson([echo('a')]), stall: true }]);
    setLlmFetch(cutOnAbort(llm.fetch));
    const r = await api('POST', '/v1/runs', { goal: 'echo', config: { execution_mode: 'sequential' } });
    const runId = r.body.run_id as string;
    await waitForRun(runId, (x) => x.step_statuses?.a === 'completed');
    const run = await cancel(runId);
    expect(run.status).toBe('cancelled');
    const { attempts, usage } = await traced(runId);
    expect(attempts.map((a) => [a.outcome, a.tokens_estimated])).toEqual([['call_error', true]]);
    expect(usage.total_tokens).toBeGreaterThan(0);
    expect(run.token_usage).toEqual(usage);
  });

  it('counts them once when the cancelled run is retried and planned afresh', async () => {
    const llm = scriptedLlm([unknownTool, { hang: true }, plan([echo('a')])]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', { goal: 'echo', config: { require_plan_approval: true } });
    const runId = r.body.run_id as string;
    await vi.waitFor(() => expect(llm.sent).toHaveLength(2), { timeout: 5_000, interval: 20 });
    await cancel(runId);
    const retried = await api('POST', `/v1/runs/${runId}/retry`, {});
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    const run = await waitForRun(runId, (x) => x.status === 'awaiting_approval');
    expect(llm.sent).toHaveLength(3);
    const { attempts, usage } = await traced(runId);
    expect(attempts.map((a) => a.outcome)).toEqual(['invalid', 'call_error', 'ok']);
    expect(run.token_usage).toEqual(usage);
  });

  it('counts the answered calls of a planning lost with its object, then cancelled before it was asked again', async () => {
    const llm = scriptedLlm([unknownTool, { hang: true }]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', { goal: 'echo', config: { require_plan_approval: true } });
    const runId = r.body.run_id as string;
    await vi.waitFor(() => expect(llm.sent).toHaveLength(2), { timeout: 5_000, interval: 20 });
    // The object goes with the repair in flight; the cancel wakes it, before its alarm asks again.
    await abortAllDurableObjects();
    const run = await cancel(runId);
    expect(run.status).toBe('cancelled');
    expect(llm.sent).toHaveLength(2);
    const { attempts, usage } = await traced(runId);
    expect(attempts.map((a) => a.outcome)).toEqual(['invalid']);
    expect(run.token_usage).toEqual(usage);
  });

  it('counts the answered calls of a revision it cancelled, beside what planning spent before', async () => {
    const llm = scriptedLlm([
      plan([echo('a'), ask, echo('b', ['ask'])]),
      plan([echo('a'), ask, { ...echo('c', ['ask']), action: 'demo.no_such_tool' }]),
      { hang: true },
    ]);
    setLlmFetch(llm.fetch);
    const runId = await startRun({ goal: 'ask, then echo', steps: [echo('a'), ask] });
    await waitForRun(runId, (x) => x.status === 'awaiting_input');
    const replan = (reason: string) => api('POST', `/v1/runs/${runId}/replan`, { reason });
    expect((await replan('add b')).status).toBe(200);
    await waitForRun(runId, (x) => x.plan_version === 2);
    expect((await replan('add c')).status).toBe(200);
    await vi.waitFor(() => expect(llm.sent).toHaveLength(3), { timeout: 5_000, interval: 20 });
    const run = await cancel(runId);
    expect(run.status).toBe('cancelled');
    const { attempts, usage } = await traced(runId);
    expect(attempts.map((a) => [a.outcome, (a.prompt_tokens as number) > 0])).toEqual([
      ['ok', true],
      ['invalid', true],
      ['call_error', false],
    ]);
    expect(run.token_usage).toEqual(usage);
    expect((await api('GET', `/v1/runs/${runId}/state`)).body.token_usage).toEqual(usage);
  });
});
