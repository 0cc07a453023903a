/**
 * An OpenAI-compatible endpoint that answers a failure with a success status and an error body (as
 * LiteLLM, vLLM and some proxies do), through the Worker: an llm.call step's attempt fails with the
 * provider's own words and code, classified as the HTTP error would be — a rate limit, retryable — and
 * the step's retry completes it. (Each shape against a real server: test/unit/chat-completions-client.test.ts.)
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { events, startRun, waitForRun } from '../workers/helpers';

afterEach(() => {
  setLlmFetch(null);
  vi.unstubAllGlobals();
});

/** The endpoint: first a 200 whose body is a rate-limit error, then a completion. */
function rateLimitedOnce() {
  const llm = scriptedLlm(['the answer']);
  let calls = 0;
  const fetchLlm = (input: RequestInfo | URL, init?: RequestInit) => {
    calls += 1;
    if (calls > 1) return llm.fetch(input, init);
    const error = {
      message: 'Rate limit reached for requests',
      type: 'requests',
      code: 'rate_limit_exceeded',
    };
    return Promise.resolve(Response.json({ error }, { status: 200 }));
  };
  setLlmFetch(fetchLlm);
  const real = globalThis.fetch;
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) =>
    new Request(input, init).url.startsWith('https://llm.test/') ? fetchLlm(input, init) : real(input, init),
  );
  return { calls: () => calls };
}

describe('an LLM endpoint that answers an error with 200', () => {
  it('fails the attempt as llm_rate_limited quoting the provider, and the step’s retry completes it', async () => {
    const llm = rateLimitedOnce();
    const id = await startRun(
      { steps: [{ id: 'ask', action: 'llm.call', parameters: { prompt: 'hi' } }] },
      { retry_failed_steps: 1, retry_delay: 0 },
    );
    const run = await waitForRun(id);
    expect(run.status).toBe('completed');
    expect(llm.calls()).toBe(2);
    const returned = (await events(id)).filter((e) => e.event_type === 'ToolReturned');
    expect(returned.map((e) => e.payload.success)).toEqual([false, true]);
    expect(returned[0]!.payload.error).toMatchObject({
      code: 'llm_rate_limited',
      retryable: true,
      message:
        'LLM at https://llm.test/v1 (model scripted-1) answered 200 with an error instead of a completion: Rate limit reached for requests (type requests, code rate_limit_exceeded)',
    });
  });
});
