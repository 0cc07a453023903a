/**
 * A revision whose side-work row is replaced by a new decision while its issue still runs (a rollback
 * clears the revision, a new one is asked for at once): the calls the abandoned issue made were spent
 * all the same, so the run's `token_usage` still equals the sum over its planning trace.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { describedEcho as echo } from '../fixtures/echo-steps';
import { api, startRun, waitForRun, type Json } from '../workers/helpers';

afterEach(() => setLlmFetch(null));

const plan = (steps: unknown[]) => JSON.stringify({ steps });
const ask = { id: 'ask', action: 'human.input', parameters: { prompt: 'Ship it?' }, dependencies: ['a'] };

describe('the tokens of a revision replaced while it ran', () => {
  it('count in token_usage as the planning trace lists them', async () => {
    const llm = scriptedLlm([
      // The first revision: v2.
      plan([echo('a'), ask, echo('b', ['ask'])]),
      // The second: a plan naming no tool there is (answered: tokens spent), then its repair hangs.
      plan([echo('a'), ask, { ...echo('c', ['ask']), action: 'demo.no_such_tool' }]),
      { hang: true },
      // The third, asked after a rollback cleared the second: v4.
      plan([echo('a'), ask, echo('d', ['ask'])]),
    ]);
    setLlmFetch(llm.fetch);
    const runId = await startRun({ goal: 'ask, then echo', steps: [echo('a'), ask] });
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    const replan = (reason: string) => api('POST', `/v1/runs/${runId}/replan`, { reason });
    expect((await replan('add b')).status).toBe(200);
    await waitForRun(runId, (r) => r.plan_version === 2);
    expect((await replan('add c')).status).toBe(200);
    await vi.waitFor(() => expect(llm.sent).toHaveLength(3), { timeout: 5_000, interval: 20 });
    // v3 = v1 while the second revision's repair is with the model: the revision is no longer wanted.
    const back = await api('POST', `/v1/runs/${runId}/rollback`, { version: 1 });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect((await replan('add d')).status).toBe(200);
    await waitForRun(runId, (r) => r.plan_version === 4);
    const asked = (await api('GET', `/v1/runs/${runId}`)).body;
    expect(asked.status).toBe('awaiting_input');
    expect((await api('POST', `/v1/runs/${runId}/input`, { input: 'yes', step_id: 'ask' })).status).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(Object.keys(run.step_results as Json).sort()).toEqual(['a', 'ask', 'd']);
    const attempts = (await api('GET', `/v1/runs/${runId}/planning`)).body.attempts as Json[];
    // The first revision, the second's answer and its repair (cut), the third.
    expect(attempts.map((a) => [a.outcome, (a.prompt_tokens as number) > 0])).toEqual([
      ['ok', true],
      ['invalid', true],
      ['call_error', false],
      ['ok', true],
    ]);
    const sum = (k: string) => attempts.reduce((n, a) => n + (a[k] as number), 0);
    expect(run.token_usage).toEqual({
      prompt_tokens: sum('prompt_tokens'),
      completion_tokens: sum('completion_tokens'),
      total_tokens: sum('prompt_tokens') + sum('completion_tokens'),
    });
  });

  it('are counted once when a revision is asked for again by the decision that takes its answer', async () => {
    // 120 tokens of 130: the answer that makes v2 asks at once for a revision to fit the budget.
    const llm = scriptedLlm([plan([echo('a'), echo('b', ['a'])]), plan([echo('a')])]);
    setLlmFetch(llm.fetch);
    const flaky = {
      id: 'flaky',
      action: 'demo.flaky',
      parameters: { fail_times: 99, key: `budget-${crypto.randomUUID()}`, permanent: true },
      dependencies: ['a'],
    };
    const runId = await startRun(
      { goal: 'echo', steps: [echo('a'), flaky] },
      { on_step_failure: 'replan', retry_failed_steps: 0, token_budget: 130 },
    );
    const run = await waitForRun(runId);
    expect(run.error?.code).toBe('token_budget');
    expect(llm.sent).toHaveLength(2);
    const attempts = (await api('GET', `/v1/runs/${runId}/planning`)).body.attempts as Json[];
    expect(attempts).toHaveLength(2);
    const listed = attempts.reduce(
      (n, a) => n + (a.prompt_tokens as number) + (a.completion_tokens as number),
      0,
    );
    expect(run.token_usage.total_tokens).toBe(listed);
  });
});
