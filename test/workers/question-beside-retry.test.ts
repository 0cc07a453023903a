/**
 * A parallel run asks a person (`human.input`) while another step waits for its retry: the retry
 * waits for the answer, then runs. The run's object took a run awaiting input for a stopped one: the
 * step was skipped (`run_terminated`) the moment the question was asked, or failed without its
 * retries when its attempt failed after, and the run ended without it once answered.
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, events, startRun, waitForRun } from './helpers';

describe('a question asked while a step waits for its retry', () => {
  it('keeps the retry, and runs it once the question is answered', async () => {
    const key = `question-beside-retry-${crypto.randomUUID()}`;
    const plan = {
      steps: [
        { id: 'flaky', action: 'demo.flaky', parameters: { fail_times: 1, key } },
        { id: 'ask', action: 'human.input', parameters: { prompt: 'Ship it?' } },
      ],
    };
    const runId = await startRun(plan, {
      execution_mode: 'parallel',
      placement: 'object',
      retry_failed_steps: 2,
      retry_delay: 1,
    });
    // The failed attempt is decided whichever came first, its failure or the question.
    const asked = await waitForRun(
      runId,
      (r) => r.status === 'awaiting_input' && r.steps.flaky.status !== 'running',
    );
    expect(asked.steps.flaky.status).toBe('pending');
    // The alarm, whenever it fires, starts nothing while the question waits, and is not left at a
    // time already past (which fires again at once).
    const stub = env.PLAN_RUN.getByName(runId);
    await runDurableObjectAlarm(stub);
    const at = await runInDurableObject(stub, (_o, state) => state.storage.getAlarm());
    expect(at === null || at > Date.now()).toBe(true);
    expect((await api('GET', `/v1/runs/${runId}`)).body.steps.flaky.status).toBe('pending');

    expect((await api('POST', `/v1/runs/${runId}/input`, { input: 'yes', step_id: 'ask' })).status).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.steps.flaky).toMatchObject({ status: 'completed', attempts: 2 });
    expect(run.step_results).toEqual({ flaky: expect.anything(), ask: 'yes' });
    const skippedOrFailed = (await events(runId)).filter(
      (e) => e.event_type === 'StepSkipped' || e.event_type === 'StepFailed',
    );
    expect(skippedOrFailed).toEqual([]);
  });
});
