import { describe, expect, it } from 'vitest';
import { planGoal } from '../../src/planner/pipeline';
import { deps, LLM_ENV, planJson, scriptedLlm } from './planner-helpers';

describe('a model call that fails in transit is retried with backoff (llmRetries)', () => {
  it('retries a 503 and a 429, then plans from the answer that came', async () => {
    const llm = scriptedLlm([
      { status: 503, error: 'overloaded' },
      { status: 429, error: 'slow down' },
      planJson(),
    ]);
    const out = await planGoal({ goal: 'Say hi twice' }, deps({ fetch: llm.fetch, llmRetries: 2 }));
    expect(out.ok).toBe(true);
    expect(llm.sent).toHaveLength(3);
  });

  it('does not retry without llmRetries, nor an error a retry cannot fix', async () => {
    const plain = scriptedLlm({ 'model-a': [{ status: 503, error: 'overloaded' }], 'model-b': [planJson()] });
    await planGoal({ goal: 'Say hi twice' }, deps({ fetch: plain.fetch }));
    expect(plain.sent.filter((s) => s.body.model === 'model-a')).toHaveLength(1);
    const auth = scriptedLlm({ 'model-a': [{ status: 401, error: 'bad key' }], 'model-b': [planJson()] });
    await planGoal({ goal: 'Say hi twice' }, deps({ fetch: auth.fetch, llmRetries: 2 }));
    expect(auth.sent.filter((s) => s.body.model === 'model-a')).toHaveLength(1);
  });
});

describe('a planning every model refused for its configuration', () => {
  /** A goal no rule plans: only the models could. */
  const GOAL = 'Compose a limerick about message queues';
  it('is not retryable (a refused key, a model the server lacks), while one that failed in transit is', async () => {
    const codes = async (script: Parameters<typeof scriptedLlm>[0]) => {
      const env = { ...LLM_ENV, PLANNER_FALLBACK_MODELS: 'model-b' };
      const out = await planGoal({ goal: GOAL }, deps({ env, fetch: scriptedLlm(script).fetch }));
      expect(out.ok).toBe(false);
      const llm = out.planning_trace.filter((t) => t.planner === 'llm');
      return { retryable: !out.ok && out.error.retryable, codes: [...new Set(llm.map((t) => t.error_code))] };
    };
    const notFound = { status: 404, error: 'The model does not exist' };
    expect(await codes({ 'model-a': [{ status: 401, error: 'bad key' }], 'model-b': [notFound] })).toEqual({
      retryable: false,
      codes: ['llm_auth_failed', 'llm_bad_request'],
    });
    expect(await codes({ 'model-a': [notFound], 'model-b': [notFound] })).toEqual({
      retryable: false,
      codes: ['llm_bad_request'],
    });
    const overloaded = { status: 503, error: 'overloaded' };
    expect(await codes({ 'model-a': [notFound], 'model-b': [overloaded] })).toEqual({
      retryable: true,
      codes: ['llm_bad_request', 'llm_server_error'],
    });
  });
});

describe('a rate-limited model (429 with Retry-After)', () => {
  /** Answers 429 with `retryAfter` until `limitedFor` ms have passed since the first call, then a plan. */
  function limited(retryAfter: string, limitedFor: number) {
    const calls: { model: string; at: number }[] = [];
    const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const body = await new Request(input, init).json<{ model: string }>();
      calls.push({ model: body.model, at: Date.now() });
      if (Date.now() - calls[0]!.at < limitedFor) {
        return Response.json(
          {
            error: {
              message: 'Rate limit reached for requests',
              type: 'requests',
              code: 'rate_limit_exceeded',
            },
          },
          { status: 429, headers: { 'retry-after': retryAfter } },
        );
      }
      return Response.json({
        id: 'c',
        object: 'chat.completion',
        created: 1,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: planJson() }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    };
    return { fetch: fetchImpl, calls };
  }

  it('waits as long as the server asks before the retry, and plans with the same model', async () => {
    const llm = limited('1', 900);
    const out = await planGoal({ goal: 'Say hi twice' }, deps({ fetch: llm.fetch, llmRetries: 2 }));
    expect(out.ok).toBe(true);
    expect(llm.calls.map((c) => c.model)).toEqual(['model-a', 'model-a']);
    expect(llm.calls[1]!.at - llm.calls[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('moves on to the next model at once when the wait asked for is longer than a retry is worth', async () => {
    const llm = limited('600', 60_000);
    const out = await planGoal(
      { goal: 'plan my holiday' },
      deps({ fetch: llm.fetch, llmRetries: 2, env: { ...LLM_ENV, PLANNER_FALLBACK_MODELS: 'model-b' } }),
    );
    expect(out.ok).toBe(false);
    expect(llm.calls.map((c) => c.model)).toEqual(['model-a', 'model-b']);
    // Why it was not waited for, and what to do about it.
    expect(out.planning_trace[0]?.message).toContain(
      'answered 429 Rate limit reached for requests (it asked to be called again in 600 s — Retry-After — longer than planning waits, 20 s: add PLANNER_FALLBACK_MODELS, or retry the run later)',
    );
  });
});
