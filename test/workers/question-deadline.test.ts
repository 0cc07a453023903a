/**
 * A `human.input` step's question records when it is due (`InputRequested`'s `deadline`) and what
 * happens then: the instant its attempt times out — the step's `timeout_ms`, else the tool's own day
 * — and the object's alarm is set for it. Driven here by the alarm on a moved clock: not a moment
 * before, the attempt times out, and the step is asked again with its new deadline.
 */
import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { api, askingRun, events, startRun, waitForRun, type Json } from './helpers';

const HOUR = 3_600_000;
const byType = (log: Json[], type: string) => log.filter((e) => e.event_type === type);

describe("a human.input step's question deadline", () => {
  it('is the instant its attempt times out, after which it is asked again', async () => {
    const ask = { id: 'ask', action: 'human.input', parameters: { prompt: 'Ship it?' }, timeout_ms: HOUR };
    const runId = await startRun({ steps: [{ ...ask, retries: 1 }] }, { retry_delay: 0 });
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    const log = await events(runId);
    const [scheduled] = byType(log, 'StepScheduled');
    const [asked] = byType(log, 'InputRequested');
    expect(asked!.payload).toMatchObject({ step_id: 'ask', if_unanswered: 'asked_again', retries_left: 1 });
    const due = Date.parse(asked!.payload.deadline as string);
    // The attempt's own deadline (the step's timeout_ms from when it was scheduled), and the alarm's.
    expect(due).toBe(scheduled!.payload.deadline_at);
    const stub = env.PLAN_RUN.getByName(runId);
    expect(await runInDurableObject(stub, (_o, state) => state.storage.getAlarm())).toBe(due);

    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      // A moment before: nothing times out.
      vi.setSystemTime(due - 1);
      await runDurableObjectAlarm(stub);
      expect(byType(await events(runId), 'ToolReturned')).toEqual([]);
      // At the deadline: the attempt times out, and the step, retried, asks again.
      vi.setSystemTime(due);
      await runDurableObjectAlarm(stub);
      const again = await waitForRun(
        runId,
        (r) => r.status === 'awaiting_input' && r.steps.ask.attempts === 2,
      );
      expect(again.status).toBe('awaiting_input');
      const after = await events(runId);
      expect(byType(after, 'ToolReturned')[0]!.payload).toMatchObject({
        attempt: 1,
        error: { code: 'timeout' },
      });
      const second = byType(after, 'InputRequested')[1]!;
      // No retry left: unanswered this time, the step fails; due an hour from its own scheduling.
      expect(second.payload).toMatchObject({ if_unanswered: 'step_fails', retries_left: 0 });
      const rescheduled = byType(after, 'StepScheduled')[1]!;
      expect(Date.parse(second.payload.deadline as string)).toBe(rescheduled.payload.deadline_at);
      expect(rescheduled.payload.deadline_at).toBe(due + HOUR);
    } finally {
      vi.useRealTimers();
    }
    expect((await api('POST', `/v1/runs/${runId}/input`, { input: 'yes', step_id: 'ask' })).status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
  });

  it("without a timeout_ms, is the tool's own limit from when the attempt began (a day)", async () => {
    const runId = await askingRun();
    const log = await events(runId);
    const [invoked] = byType(log, 'ToolInvoked');
    const [asked] = byType(log, 'InputRequested');
    expect(invoked!.payload.limit_ms).toBe(86_400_000);
    expect(Date.parse(asked!.payload.deadline as string)).toBe(invoked!.payload.deadline_at);
    const stub = env.PLAN_RUN.getByName(runId);
    expect(await runInDurableObject(stub, (_o, state) => state.storage.getAlarm())).toBe(
      invoked!.payload.deadline_at,
    );
  });
});
