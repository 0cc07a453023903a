/**
 * Two `human.input` steps running at once: the run waits on one question at a time, so the second is
 * asked when the first is answered — not dropped, leaving its step waiting a day for an answer to a
 * question nobody saw.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, events, startRun, waitForRun } from './helpers';

const plan = {
  steps: [
    { id: 'city', action: 'human.input', parameters: { prompt: 'Which city?' } },
    { id: 'date', action: 'human.input', parameters: { prompt: 'Which date?' } },
    {
      id: 'trip',
      action: 'demo.echo',
      parameters: { city: '{{ steps.city.output }}', date: '{{ steps.date.output }}' },
      dependencies: ['city', 'date'],
    },
  ],
};

const asked = async (runId: string) =>
  (await events(runId)).filter((e) => e.event_type === 'InputRequested').map((e) => e.payload.step_id);

describe.each([
  ['in the object', { execution_mode: 'parallel', placement: 'object' }],
  ['through the queue', { execution_mode: 'parallel', placement: 'queue' }],
])('two questions at once, %s', (_where, config) => {
  it('asks the second once the first is answered, each once, and the run completes', async () => {
    const runId = await startRun(plan, config);
    const first = await waitForRun(runId, (r) => r.status === 'awaiting_input');
    // Both attempts began; one question is the run's now.
    expect(first.steps.city.status).toBe('running');
    expect(first.steps.date.status).toBe('running');
    const [one] = await asked(runId);
    expect(['city', 'date']).toContain(one);
    const other = one === 'city' ? 'date' : 'city';
    const answers: Record<string, string> = { city: 'Berlin', date: '2027-05-01' };

    expect(
      (await api('POST', `/v1/runs/${runId}/input`, { input: answers[one!], step_id: one })).status,
    ).toBe(200);
    // The queue path's re-sent attempt comes back through the object's alarm; in the object it is asked at once.
    await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId));
    const second = await waitForRun(runId, (r) => r.status === 'awaiting_input');
    expect(second.steps[one!].status).toBe('completed');
    expect(await asked(runId)).toEqual([one, other]);

    expect(
      (await api('POST', `/v1/runs/${runId}/input`, { input: answers[other], step_id: other })).status,
    ).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.trip).toEqual({ city: 'Berlin', date: '2027-05-01' });
    expect(await asked(runId)).toEqual([one, other]);
    // Each step's one attempt, recorded once: asking again is not a new attempt.
    const invoked = (await events(runId)).filter((e) => e.event_type === 'ToolInvoked');
    expect(invoked.map((e) => `${e.payload.step_id}#${e.payload.attempt}`).sort()).toEqual([
      'city#1',
      'date#1',
      'trip#1',
    ]);
  }, 20_000);
});

describe('the second question across a crash', () => {
  it('is asked by the alarm of a new instance when the one that took the first answer died before asking it', async () => {
    const runId = await startRun(plan, { execution_mode: 'parallel', placement: 'object' });
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    const [one] = await asked(runId);
    const other = one === 'city' ? 'date' : 'city';
    // This instance takes the answer but never gets to record the next question: it dies first.
    await runInDurableObject(env.PLAN_RUN.getByName(runId), (instance) => {
      (instance as unknown as { awaitInput: () => Promise<void> }).awaitInput = () =>
        new Promise(() => undefined);
    });
    expect((await api('POST', `/v1/runs/${runId}/input`, { input: 'x', step_id: one })).status).toBe(200);
    await abortAllDurableObjects();
    expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('running');
    expect(await asked(runId)).toEqual([one]);
    expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId))).toBe(true);
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    expect(await asked(runId)).toEqual([one, other]);
  }, 20_000);
});
