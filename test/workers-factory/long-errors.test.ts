import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { CUT_ERROR_CHARS, SNAPSHOT_ERROR_CHARS } from '../../src/engine/value-budget';
import { api, startRun, type Json } from '../workers/helpers';

const STEPS = 1100;
/**
 * A message of 16,000 three-byte characters (two bytes each as the object's RPC serialises them):
 * 35 MB of messages for the run, over the 32 MiB one RPC carries.
 */
const CHARS = 16_000;

/** Polls `/status` (the one read that carries no errors) until the run ends. */
async function waitForEnd(runId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await api('GET', `/v1/runs/${runId}/status`);
    if (['completed', 'failed', 'aborted', 'cancelled'].includes(r.body.run_status as string)) return;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not end: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

describe('a run whose failed steps carry long error messages', () => {
  it('is served by GET /v1/runs/:id, /state and /status with details, the messages cut past the snapshot budget and whole in the events', async () => {
    const steps = Array.from({ length: STEPS }, (_, i) => ({
      id: `s${i}`,
      action: 'team.fail',
      parameters: { char: '€', chars: CHARS },
    }));
    const runId = await startRun(
      { goal: 'fail loudly', steps },
      {
        max_steps: STEPS,
        execution_mode: 'parallel',
        max_parallel: 50,
        continue_on_failure: true,
        retry_failed_steps: 0,
      },
    );
    await waitForEnd(runId);

    const res = await exports.default.fetch(new Request(`http://edgeplan.test/v1/runs/${runId}`));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(new TextEncoder().encode(text).length).toBeLessThan(8 * 1024 * 1024);
    const run = JSON.parse(text) as Json;
    expect(run.counts.failed).toBe(STEPS);
    const errors = Object.values(run.steps as Record<string, { error: Json }>).map((s) => s.error);
    // Every error keeps its code; the first ones whole, then cut, saying how long and where it is whole.
    expect(errors.every((e) => e.code === 'tool_error' && e.retryable === true)).toBe(true);
    const whole = errors.filter((e) => e.message === '€'.repeat(CHARS));
    expect(whole.length).toBe(Math.floor(SNAPSHOT_ERROR_CHARS / CHARS));
    const cut = errors.filter((e) => e.message !== '€'.repeat(CHARS));
    expect(cut.length).toBe(STEPS - whole.length);
    const cutMessage =
      `${'€'.repeat(CUT_ERROR_CHARS)}… (${CHARS} characters; the whole message is in the step's ` +
      `StepFailed event, GET /v1/runs/:id/events)`;
    expect(cut.every((e) => e.message === cutMessage)).toBe(true);

    const state = await api('GET', `/v1/runs/${runId}/state`);
    expect(state.status).toBe(200);
    expect(state.body.steps[`s${STEPS - 1}`].error.message).toBe(cutMessage);

    const status = await api('GET', `/v1/runs/${runId}/status?include_details=true`);
    expect(status.status).toBe(200);
    const subtasks = status.body.subtasks as { error: string }[];
    expect(subtasks).toHaveLength(STEPS);
    expect(subtasks.at(-1)!.error).toBe(cutMessage);

    // The event log still has every message whole.
    const last = await api('GET', `/v1/runs/${runId}/events?after=0&limit=1000`);
    expect(last.status).toBe(200);
    const failed = (last.body.events as Json[]).filter((e) => e.event_type === 'StepFailed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((e) => e.payload.error.message === '€'.repeat(CHARS))).toBe(true);
  }, 120_000);
});
