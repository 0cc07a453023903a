/**
 * What OpenAI-compatible servers really send, planned from: content parts, an answer in a tool call,
 * bodies that are no completion, answers cut off at the token limit, reasoning before the plan.
 */
import { describe, expect, it } from 'vitest';
import type { PlanYield } from '../../src/planner/contracts';
import { isStepYield } from '../../src/planner/contracts';
import { planGoal } from '../../src/planner/pipeline';
import { LlmStreamingPlanner } from '../../src/planner/streaming-planner';
import { deps, planJson } from './planner-helpers';

const GOAL = 'Summarize the news'; // no rule matches it: only the LLM can plan it
const good = planJson();

/** An endpoint answering each call with the next of `replies` (a 500 once they run out). */
function endpoint(replies: (() => Response)[]) {
  let calls = 0;
  const fetch = (): Promise<Response> => {
    const reply = replies[calls++];
    return Promise.resolve(
      reply ? reply() : Response.json({ error: { message: 'unscripted' } }, { status: 500 }),
    );
  };
  return { fetch: fetch as typeof globalThis.fetch, calls: () => calls };
}

const completion =
  (message: Record<string, unknown>, finish_reason = 'stop') =>
  () =>
    Response.json({
      id: 'c',
      object: 'chat.completion',
      created: 1,
      model: 'model-a',
      choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });

const plan = async (replies: (() => Response)[]) => {
  const llm = endpoint(replies);
  const out = await planGoal({ goal: GOAL }, deps({ fetch: llm.fetch }));
  return { out, calls: llm.calls() };
};

describe('planning from what OpenAI-compatible servers send', () => {
  it('reads content sent as an array of text parts', async () => {
    const { out } = await plan([completion({ content: [{ type: 'text', text: good }] })]);
    expect(out.ok && out.plan.steps.map((s) => s.id)).toEqual(['a', 'b']);
  });

  it('reads the plan from a tool call when the content beside it is an empty string', async () => {
    const call = { id: 't', type: 'function', function: { name: 'plan', arguments: good } };
    const { out, calls } = await plan([completion({ content: '', tool_calls: [call] })]);
    expect(out.ok && out.plan.steps.length).toBe(2);
    expect(calls).toBe(1);
  });

  it('fails a 2xx body without choices as llm_invalid_response naming its keys and the base URL to check, without a repair', async () => {
    const native = () =>
      Response.json({ result: { response: good }, success: true, errors: [], messages: [] });
    const { out, calls } = await plan([native]);
    expect(calls).toBe(1);
    expect(out.ok).toBe(false);
    const message = out.ok ? '' : out.error.message;
    expect(message).toContain('llm_invalid_response');
    expect(message).toContain('JSON without "choices" (its keys: "result", "success", "errors", "messages")');
    expect(message).toContain('/ai/v1 for Workers AI');
    expect(out.planning_trace[0]).toMatchObject({ outcome: 'call_error' });
  });

  it('fails a login page served with 200 as llm_invalid_response, not as an empty answer', async () => {
    const page = () =>
      new Response('<!doctype html><html><head><title>Sign in – Access</title></head></html>', {
        headers: { 'content-type': 'text/html' },
      });
    const { out } = await plan([page]);
    expect(out.ok ? '' : out.error.message).toMatch(
      /llm_invalid_response: .*answered an HTML page \("Sign in – Access"\) instead of a chat completion/,
    );
  });

  it('fails a completion with no choices as llm_empty_response, not as a model that answered nothing', async () => {
    const empty = () => Response.json({ id: 'c', object: 'chat.completion', model: 'm', choices: [] });
    const { out, calls } = await plan([empty]);
    expect(calls).toBe(1);
    expect(out.ok ? '' : out.error.message).toContain(
      'llm_empty_response: LLM at https://llm.test/v1 (model model-a) answered a completion with no choices',
    );
  });

  it('says an answer stopped at the token limit is cut off, and what to raise', async () => {
    const cut = completion({ content: good.slice(0, 60) }, 'length');
    const { out } = await plan([cut, cut]);
    const message = out.ok ? '' : out.error.message;
    expect(message).toContain(
      'stopped at the model\'s output token limit (finish_reason "length") after 60 characters',
    );
    expect(message).toContain('num_predict');
  });

  it('says when an answer held only reasoning and no content', async () => {
    const thinking = completion(
      { content: null, reasoning_content: 'Let me think about the news…' },
      'length',
    );
    const { out } = await plan([thinking, thinking]);
    expect(out.ok ? '' : out.error.message).toContain(
      'The answer held no content, only 28 characters of reasoning (reasoning_content)',
    );
  });

  it('does not read a plan out of a reasoning block the answer never closed', async () => {
    const cut = completion(
      { content: '<think>maybe {"steps": [{"id": "draft", "action": "demo.echo"}]} or' },
      'length',
    );
    const { out } = await plan([cut, cut]);
    expect(out.ok).toBe(false);
    expect(out.planning_trace.every((t) => t.outcome !== 'invalid')).toBe(true);
  });
});

const line = (id: string, dependencies: string[] = []) =>
  `${JSON.stringify({ type: 'step', step: { id, description: id, action: 'demo.echo', parameters: { id }, dependencies } })}\n`;
const delta = (content: string) => ({
  id: 's',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'model-a',
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
});
const sse = (events: unknown[]) => () =>
  new Response(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''), {
    headers: { 'content-type': 'text/event-stream' },
  });

async function stream(replies: (() => Response)[]) {
  const llm = endpoint(replies);
  const items: PlanYield[] = [];
  const planner = new LlmStreamingPlanner(deps({ fetch: llm.fetch }));
  for await (const item of planner.plan({
    goal: GOAL,
    tools: deps().tools.describe(),
    limits: { max_steps: 10, max_depth: 2 },
  }))
    items.push(item);
  return { items, ids: items.filter(isStepYield).map((s) => s.id), calls: llm.calls() };
}

describe('streamed plans from what OpenAI-compatible servers send', () => {
  it('takes a last chunk that carries usage and no choices, and counts its tokens', async () => {
    const usageOnly = {
      id: 's',
      object: 'chat.completion.chunk',
      model: 'model-a',
      usage: { prompt_tokens: 7, completion_tokens: 3 },
    };
    const { ids, items } = await stream([sse([delta(line('a')), delta(line('b', ['a'])), usageOnly])]);
    expect(ids).toEqual(['a', 'b']);
    const last = items.at(-1);
    expect(last && 'finish' in last ? last.finish.result : null).toEqual({
      tokens: { prompt: 7, completion: 3 },
    });
  });

  it('skips step lines inside a <think> block: a step drafted while thinking is not run', async () => {
    const thinking = `<think>\nA first draft:\n${line('draft')}maybe better…\n</think>\n`;
    const { ids, calls } = await stream([sse([delta(thinking), delta(line('a')), delta(line('b', ['a']))])]);
    expect(ids).toEqual(['a', 'b']);
    expect(calls).toBe(1);
  });
});
