/**
 * Planning and revisions are durable side work (issue 10): a goal run whose object dies while the
 * planner's LLM call is pending is planned again by its alarm and finishes; a revision likewise; a
 * hung LLM call is bounded by `planning_timeout_s`, so the run ends instead of waiting forever; an
 * LLM judge of an `expected_output` likewise survives its object.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { api, events, startRun, waitForRun } from '../workers/helpers';
import { describedEcho as echo } from '../fixtures/echo-steps';

const plan = (steps: unknown[]) => JSON.stringify({ steps });
/** A streamed NDJSON answer (seed 003), as an eager goal run asks for. */
const ndjson = (steps: unknown[]) => ({
  stream: steps.map((step) => `${JSON.stringify({ type: 'step', step })}\n`),
});
const count = async (runId: string, type: string) =>
  (await events(runId)).filter((e) => e.event_type === type).length;

afterEach(() => setLlmFetch(null));

/**
 * A goal run whose slow model streams a `demo.counter` step `a` (then `b` a second later), once `a`
 * has run; the model streams the same plan again when asked.
 */
async function counterStreamedIn(name: string) {
  const key = `${name}-${Date.now()}`;
  const counter = {
    id: 'a',
    description: 'count',
    action: 'demo.counter',
    parameters: { key },
    dependencies: [],
  };
  const llm = scriptedLlm([
    { ...ndjson([counter, echo('b', ['a'])]), gap_ms: 1_000 },
    ndjson([counter, echo('b', ['a'])]),
  ]);
  setLlmFetch(llm.fetch);
  const r = await api('POST', '/v1/runs', { goal: 'count, then echo' });
  const runId = r.body.run_id as string;
  await vi.waitFor(async () => expect(await count(runId, 'ToolReturned')).toBe(1), {
    timeout: 5_000,
    interval: 20,
  });
  return { runId, key, llm };
}

/** Woken by its alarm, the run completes with `a` counted once and each step invoked once. */
async function expectRunOnce(runId: string, key: string) {
  expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId))).toBe(true);
  const run = await waitForRun(runId);
  expect(run.status).toBe('completed');
  expect(run.step_results).toEqual({ a: { key, value: 1 }, b: { id: 'b' } });
  expect(await count(runId, 'ToolInvoked')).toBe(2); // a once, b once
  expect(await count(runId, 'PlanAuthored')).toBe(1);
}

describe('durable planning', () => {
  it('plans a goal again when its object is lost while the LLM call is pending, and runs it once', async () => {
    const llm = scriptedLlm([{ hang: true }, ndjson([echo('a'), echo('b', ['a'])])]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', { goal: 'echo twice' });
    expect(r.status).toBe(201);
    const runId = r.body.run_id as string;
    await vi.waitFor(() => expect(llm.sent).toHaveLength(1), { timeout: 5_000, interval: 20 });
    await abortAllDurableObjects(); // the pending call dies with its instance
    expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('planning');
    // The alarm armed while planning finds the lost work and issues it again.
    expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId))).toBe(true);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results).toEqual({ a: { id: 'a' }, b: { id: 'b' } });
    expect(llm.sent).toHaveLength(2);
    expect(await count(runId, 'PlanAuthored')).toBe(1);
    expect(await count(runId, 'RunStarted')).toBeLessThanOrEqual(1);
  });

  it('streams the plan again when the object is lost mid-stream, and runs no streamed step twice', async () => {
    const { runId, key, llm } = await counterStreamedIn('mid-stream');
    await abortAllDurableObjects(); // the stream dies with its instance
    await expectRunOnce(runId, key);
    expect(llm.sent).toHaveLength(2);
  });

  it('carries on a run an older release was streaming in (no plan row), running no streamed step twice', async () => {
    const { runId, key } = await counterStreamedIn('mid-stream-old');
    // As a release before 2026-11-27 left it: the steps' rows and StepStreamed events, no plan row.
    const stub = env.PLAN_RUN.getByName(runId);
    await runInDurableObject(stub, (_i, state) => state.storage.sql.exec('DELETE FROM plans'));
    await abortAllDurableObjects();
    await expectRunOnce(runId, key);
  });

  // One hung call, cut at the timeout and not retried: a model that took the whole planning_timeout_s
  // is not asked again (the planning deadline is left to fallback models; there are none here).
  it('ends a run whose LLM call hangs once planning_timeout_s passes, naming the timeout', async () => {
    const llm = scriptedLlm([{ hang: true }, { hang: true }, { hang: true }]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'plan my holiday',
      config: { planning_timeout_s: 0.3, require_plan_approval: true },
    });
    const run = await waitForRun(r.body.run_id as string, undefined, 15_000);
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('planning_failed');
    expect(JSON.stringify(run.error)).toContain('timed out');
    expect(llm.sent).toHaveLength(1);
  }, 20_000);

  it('counts the model calls of every issue lost with its object in the planning_timeout that ends it', async () => {
    // Each issue: a plan naming no tool there is, then its repair hangs until the object is lost.
    const bad = plan([{ ...echo('a'), action: 'demo.no_such_tool' }]);
    const llm = scriptedLlm([bad, { hang: true }, bad, { hang: true }, bad, { hang: true }]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'plan my holiday',
      config: { require_plan_approval: true },
    });
    const runId = r.body.run_id as string;
    for (const sent of [2, 4, 6]) {
      await vi.waitFor(() => expect(llm.sent).toHaveLength(sent), { timeout: 5_000, interval: 20 });
      await abortAllDurableObjects();
      // Issued again twice; the third loss fails the run.
      expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId))).toBe(true);
    }
    const run = await waitForRun(runId);
    expect(run.status).toBe('failed');
    expect(run.error, JSON.stringify(run.error).slice(0, 600)).toMatchObject({ code: 'planning_timeout' });
    // The three answers the model gave (100 + 20 tokens each), though no issue finished.
    expect(run.token_usage).toEqual({ prompt_tokens: 300, completion_tokens: 60, total_tokens: 360 });
  });

  it('asks the judge again when the object is lost while its verdict is pending, and goes on once', async () => {
    const llm = scriptedLlm([{ hang: true }, JSON.stringify({ ok: true, reason: 'it has the items' })]);
    setLlmFetch(llm.fetch);
    const runId = await startRun({
      steps: [{ ...echo('a'), expected_output: 'an id', parameters: { id: 'a' } }, echo('b', ['a'])],
    });
    await vi.waitFor(() => expect(llm.sent).toHaveLength(1), { timeout: 5_000, interval: 20 });
    await abortAllDurableObjects(); // the pending verdict dies with its instance
    // Dependents go on meanwhile; the run cannot end before the verdict.
    expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('running');
    expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId))).toBe(true);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.revision_count).toBe(0);
    expect(run.steps.a.attempts).toBe(1);
    expect(llm.sent).toHaveLength(2);
    expect(llm.sent[1]!.body.messages[1]!.content).toContain('Expected output: an id');
    expect(await count(runId, 'ReflectionAdded')).toBe(1);
  });

  it('revises again when the object is lost while the revision is pending, keeping completed work', async () => {
    const key = `durable-revise-${Date.now()}`;
    const llm = scriptedLlm([{ hang: true }, plan([echo('a'), echo('fixed', ['a'])])]);
    setLlmFetch(llm.fetch);
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
    await vi.waitFor(() => expect(llm.sent).toHaveLength(1), { timeout: 5_000, interval: 20 });
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId))).toBe(true);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.revision_count).toBe(1);
    expect(run.steps.a.attempts).toBe(1);
    expect(run.step_results.fixed).toEqual({ id: 'fixed' });
    expect(llm.sent).toHaveLength(2);
    expect(await count(runId, 'PlanUpdated')).toBe(1);
  });
});
