/**
 * The LLM judge's calls in the run's `token_usage`: a verdict's tokens are recorded in the transaction
 * that applies it (nothing is awaited between the answer and that write), so an answered call counts
 * once; an answer without a verdict (`judge_unreadable`) was paid for too and counts; a call lost
 * with its object before any answer came is asked again, and the answer that came is what counts —
 * as a planning call cut by a crash is not in the planning trace either.
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { describedEcho as echo } from '../fixtures/echo-steps';
import { events, startRun, waitForRun, type Json } from '../workers/helpers';

afterEach(() => setLlmFetch(null));

const judged = { ...echo('a'), expected_output: 'an id', parameters: { id: 'a' } };
const reflections = async (runId: string) =>
  (await events(runId)).filter((e) => e.event_type === 'ReflectionAdded').map((e) => e.payload as Json);

describe('the judge’s tokens', () => {
  it('count when the judge answers without a verdict, and the output stands', async () => {
    const llm = scriptedLlm([
      { content: 'Looks fine to me.', usage: { prompt_tokens: 70, completion_tokens: 9 } },
    ]);
    setLlmFetch(llm.fetch);
    const runId = await startRun({ steps: [judged, echo('b', ['a'])] });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(llm.sent).toHaveLength(1);
    const [r] = await reflections(runId);
    expect(r!.reflection).toContain('the judge could not answer');
    expect(r!.tokens).toEqual({ prompt: 70, completion: 9 });
    expect(run.token_usage).toEqual({ prompt_tokens: 70, completion_tokens: 9, total_tokens: 79 });
  });

  it('count the answered call once when the first was lost with its object before it answered', async () => {
    const llm = scriptedLlm([
      { hang: true },
      { content: '{"ok": true, "reason": "has an id"}', usage: { prompt_tokens: 80, completion_tokens: 6 } },
    ]);
    setLlmFetch(llm.fetch);
    const runId = await startRun({ steps: [judged] });
    await vi.waitFor(() => expect(llm.sent).toHaveLength(1), { timeout: 5_000, interval: 20 });
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId))).toBe(true);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(llm.sent).toHaveLength(2);
    expect((await reflections(runId)).map((r) => r.tokens)).toEqual([{ prompt: 80, completion: 6 }]);
    expect(run.token_usage).toEqual({ prompt_tokens: 80, completion_tokens: 6, total_tokens: 86 });
  });
});
