/**
 * A model that never answers must leave the planning deadline (three times planning_timeout_s in a
 * run's object) to the fallback models: it is given one timeout, not three, and a stream that timed
 * out on it is not followed by a whole-plan call to it.
 */
import { describe, expect, it } from 'vitest';
import { isStepYield } from '../../src/planner/contracts';
import { planGoal } from '../../src/planner/pipeline';
import { LlmStreamingPlanner } from '../../src/planner/streaming-planner';
import { deps, LLM_ENV, planJson, scriptedLlm } from './planner-helpers';

const env = { ...LLM_ENV, PLANNER_FALLBACK_MODELS: 'model-b' };
const GOAL = 'Summarize the news';

describe('a hung model with a fallback configured', () => {
  it('is not retried after its timeout: the fallback is asked next, even with llmRetries', async () => {
    const llm = scriptedLlm({
      'model-a': [{ hang: true }, { hang: true }, { hang: true }],
      'model-b': [planJson()],
    });
    const out = await planGoal({ goal: GOAL }, deps({ fetch: llm.fetch, env, timeoutMs: 50, llmRetries: 2 }));
    expect(out.ok && out.model).toBe('model-b');
    expect(llm.sent.map((s) => s.body.model)).toEqual(['model-a', 'model-b']);
    expect(out.planning_trace[0]).toMatchObject({ model: 'model-a', outcome: 'call_error' });
    expect(out.planning_trace[0]?.message).toMatch(/^timeout: /);
  });

  it('is not asked for a whole plan after its stream timed out: the fallback plans', async () => {
    const llm = scriptedLlm({ 'model-a': [{ hang: true }, { hang: true }], 'model-b': [planJson()] });
    const planner = new LlmStreamingPlanner(deps({ fetch: llm.fetch, env, timeoutMs: 50, llmRetries: 2 }));
    const ids: string[] = [];
    let model: unknown;
    for await (const item of planner.plan({
      goal: GOAL,
      tools: deps().tools.describe(),
      limits: { max_steps: 10, max_depth: 2 },
    })) {
      if (isStepYield(item)) ids.push(item.id);
      else if ('finish' in item) model = item.finish.plan?.metadata?.model;
    }
    expect(ids).toEqual(['a', 'b']);
    expect(model).toBe('model-b');
    expect(llm.sent.map((s) => [s.body.model, !!s.body.stream])).toEqual([
      ['model-a', true],
      ['model-b', false],
    ]);
  });

  it('is not asked for a whole plan after its stream found no such model (404): the fallback plans', async () => {
    const llm = scriptedLlm({
      'model-a': [{ status: 404, error: 'The model `model-a` does not exist' }, planJson()],
      'model-b': [planJson()],
    });
    const planner = new LlmStreamingPlanner(deps({ fetch: llm.fetch, env }));
    const ids: string[] = [];
    for await (const item of planner.plan({
      goal: GOAL,
      tools: deps().tools.describe(),
      limits: { max_steps: 10, max_depth: 2 },
    }))
      if (isStepYield(item)) ids.push(item.id);
    expect(ids).toEqual(['a', 'b']);
    expect(llm.sent.map((s) => s.body.model)).toEqual(['model-a', 'model-b']);
  });

  it('is still asked for a whole plan when its stream was refused as a request (a server without stream_options)', async () => {
    const llm = scriptedLlm({
      'model-a': [
        { status: 400, error: 'Unrecognized request argument supplied: stream_options' },
        planJson(),
      ],
    });
    const planner = new LlmStreamingPlanner(deps({ fetch: llm.fetch, env }));
    const ids: string[] = [];
    for await (const item of planner.plan({
      goal: GOAL,
      tools: deps().tools.describe(),
      limits: { max_steps: 10, max_depth: 2 },
    }))
      if (isStepYield(item)) ids.push(item.id);
    expect(ids).toEqual(['a', 'b']);
    expect(llm.sent.map((s) => s.body.model)).toEqual(['model-a', 'model-a']);
  });
});
