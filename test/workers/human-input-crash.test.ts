/**
 * A `human.input` step whose run's instance dies after the attempt was recorded (ToolInvoked) and
 * before its question was (InputRequested): after the crash the run must ask the question — once —
 * instead of running on with nobody asked until the tool's day-long limit.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { api, events, startRun, waitForRun } from './helpers';

describe('a question across a crash of its run', () => {
  it('is asked once after the instance died between recording the attempt and the question', async () => {
    const runId = await startRun({
      steps: [
        { id: 'first', action: 'human.input', parameters: { prompt: 'Start?' } },
        { id: 'ask', action: 'human.input', parameters: { prompt: 'Which city?' }, dependencies: ['first'] },
        {
          id: 'use',
          action: 'demo.echo',
          parameters: { city: '{{ steps.ask.output }}' },
          dependencies: ['ask'],
        },
      ],
    });
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    // This instance never gets to record a question: it dies first.
    await runInDurableObject(env.PLAN_RUN.getByName(runId), (instance) => {
      (instance as unknown as { awaitInput: () => Promise<void> }).awaitInput = () =>
        new Promise(() => undefined);
    });
    expect((await api('POST', `/v1/runs/${runId}/input`, { input: 'yes', step_id: 'first' })).status).toBe(
      200,
    );
    await vi.waitFor(async () =>
      expect(
        (await events(runId)).some((e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 'ask'),
      ).toBe(true),
    );
    await abortAllDurableObjects();
    expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('running');
    expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId))).toBe(true);
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    expect((await events(runId)).at(-1)).toMatchObject({
      event_type: 'InputRequested',
      payload: { step_id: 'ask' },
    });
    // Later wake-ups ask nothing again.
    await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId));
    expect((await api('POST', `/v1/runs/${runId}/input`, { input: 'Berlin', step_id: 'ask' })).status).toBe(
      200,
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.use).toEqual({ city: 'Berlin' });
    const asked = (await events(runId)).filter((e) => e.event_type === 'InputRequested');
    expect(asked.map((e) => e.payload.step_id)).toEqual(['first', 'ask']);
    const invoked = (await events(runId)).filter(
      (e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 'ask',
    );
    expect(invoked.map((e) => e.payload.attempt)).toEqual([1]);
  });
});
