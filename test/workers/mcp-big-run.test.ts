/**
 * A run too big for one tool result, at `/mcp`: get_run (and wait_for_run's run) answer it in part —
 * within MCP_RUN_CHARS, its failed step shown, long values as markers — and say how to read the rest;
 * get_run's step_ids and get_run_value read what was left out. Through the SDK's Client, the real
 * routes, the run's Durable Object and queue.
 */
import { describe, expect, it } from 'vitest';
import { MCP_RUN_CHARS, MCP_VALUE_CHARS } from '../../src/http/mcp-run-answer';
import type { Json } from './helpers';
import { call, connect, echo } from './mcp-client';

const STEPS = 300;
const LONG = 'y'.repeat(MCP_VALUE_CHARS + 500);

/** 300 echo steps of 200 characters each (one of them long), and a step that fails. */
function bigPlan(): Json {
  const steps: Json[] = Array.from({ length: STEPS }, (_, i) =>
    echo(`s${i}`, { text: i === 3 ? LONG : `${i}`.padEnd(200, '.') }),
  );
  steps.push({ id: 'broken', action: 'demo.flaky', parameters: { fail_times: 5, permanent: true } });
  return { goal: 'a big run', steps };
}

describe('/mcp on a run too big to read whole', () => {
  it('answers it in part, failed step first, and reads what it left out by step_ids and get_run_value', async () => {
    const client = await connect();
    const started = await call(client, 'start_run', {
      plan: bigPlan(),
      config: { max_steps: 1000, continue_on_failure: true },
    });
    expect(started.isError, JSON.stringify(started.structuredContent)).toBeUndefined();
    const runId = started.structuredContent!.run_id as string;

    const waited = await call(client, 'wait_for_run', { run_id: runId, timeout_s: 50 });
    expect(waited.structuredContent!.timed_out).toBe(false);
    const waitedRun = waited.structuredContent!.run as Json;
    expect(waitedRun.status).toBe('failed');
    expect(waitedRun.partial.steps_total).toBe(STEPS + 1);

    const r = await call(client, 'get_run', { run_id: runId });
    const run = r.structuredContent!;
    expect(r.isError).toBeUndefined();
    // What a model is handed is within the bound, text and structured content alike.
    expect(r.content[0]!.text!.length).toBeLessThanOrEqual(MCP_RUN_CHARS);
    expect(JSON.parse(r.content[0]!.text!)).toEqual(run);
    expect(run.counts).toMatchObject({ total: STEPS + 1, completed: STEPS, failed: 1 });
    const shown = Object.keys(run.step_statuses as Json);
    expect(run.partial).toMatchObject({ steps_total: STEPS + 1, steps_shown: shown.length });
    expect(run.partial.whole_chars).toBeGreaterThan(MCP_RUN_CHARS);
    expect(shown.length).toBeLessThan(STEPS + 1);
    expect(run.partial.message).toContain('step_ids');
    // The failed step is shown though it is last in plan order, whole: plan entry, detail, status.
    expect(shown).toContain('broken');
    expect(run.steps.broken.error.code).toBe('demo_flaky');
    // Every map and the plan hold the same steps, in plan order.
    expect((run.plan.steps as Json[]).map((s) => s.id)).toEqual(shown);
    expect(Object.keys(run.steps as Json)).toEqual(shown);
    expect(Object.keys(run.step_results as Json)).toEqual(shown.filter((id) => id !== 'broken'));
    // The long result is a marker that get_run_value reads whole.
    const marker = run.step_results.s3.$elided as Json;
    expect(marker).toMatchObject({ ref: 'steps.s3.output', bytes: JSON.stringify({ text: LONG }).length });
    const value = await call(client, 'get_run_value', { run_id: runId, ref: marker.ref });
    expect(value.structuredContent).toEqual({ ref: 'steps.s3.output', value: { text: LONG } });

    // A step left out is read by step_ids: that step alone, whole.
    const last = `s${STEPS - 1}`;
    expect(shown).not.toContain(last);
    const one = (await call(client, 'get_run', { run_id: runId, step_ids: [last] })).structuredContent!;
    expect(one.step_statuses).toEqual({ [last]: 'completed' });
    expect(one.step_results).toEqual({ [last]: { text: `${STEPS - 1}`.padEnd(200, '.') } });
    expect((one.plan.steps as Json[]).map((s) => s.id)).toEqual([last]);
    expect(one.counts).toEqual(run.counts);
    // The run's other long values stay markers (its final output gathers every step's result).
    expect(one.final_output).toMatchObject({ $elided: { ref: 'final_output' } });
    expect(one.partial).toMatchObject({ steps_total: 1, steps_shown: 1, values_elided: 1 });
    await client.close();
  });

  it('refuses step_ids it cannot read: not a list, too many, a step the run does not have', async () => {
    const client = await connect();
    const started = await call(client, 'start_run', { plan: { goal: 'g', steps: [echo('a', { x: 1 })] } });
    const runId = started.structuredContent!.run_id as string;
    const refused = async (args: Json) => {
      const r = await call(client, 'get_run', { run_id: runId, ...args });
      expect(r.isError).toBe(true);
      return r.structuredContent!.error as Json;
    };
    expect(await refused({ step_ids: 'a' })).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('step_ids must be a list of step ids'),
    });
    expect(await refused({ step_ids: [] })).toMatchObject({ code: 'invalid_request' });
    const many = Array.from({ length: 51 }, (_, i) => `s${i}`);
    expect(await refused({ step_ids: many })).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('at most 50 steps a call (got 51)'),
    });
    expect(await refused({ step_ids: ['a', 'nope'] })).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('The run has no step "nope"'),
    });
    // A small run is answered whole, as the API answers it.
    const whole = (await call(client, 'get_run', { run_id: runId })).structuredContent!;
    expect(whole.partial).toBeUndefined();
    expect(Object.keys(whole.step_statuses as Json)).toEqual(['a']);
    await client.close();
  });
});
