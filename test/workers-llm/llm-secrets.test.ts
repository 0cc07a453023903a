import { afterEach, describe, expect, it, vi } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { api, events, startRun, waitForRun } from '../workers/helpers';

afterEach(() => {
  setLlmFetch(null);
  vi.unstubAllGlobals();
});

/** The OPENAI_API_KEY of the workers-llm project (vitest.config.mts). */
const KEY = 'sk-test-scripted';

/** An endpoint that refuses the key the way some OpenAI-compatible proxies do: quoting it back. */
function refusingKey() {
  const llm = scriptedLlm(
    Array.from({ length: 10 }, () => ({ status: 401, error: `Incorrect API key provided: ${KEY}.` })),
  );
  setLlmFetch(llm.fetch);
  const real = globalThis.fetch;
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) =>
    new Request(input, init).url.startsWith('https://llm.test/') ? llm.fetch(input, init) : real(input, init),
  );
  return llm;
}

describe('an LLM endpoint that quotes the API key back in its error', () => {
  it('fails an llm.call step with an actionable message that never carries the key', async () => {
    const llm = refusingKey();
    const id = await startRun({ steps: [{ id: 'ask', action: 'llm.call', parameters: { prompt: 'hi' } }] });
    const run = await waitForRun(id);
    expect(llm.sent.length).toBeGreaterThan(0);
    expect(run.status).toBe('failed');
    expect(run.error.message).toContain('check OPENAI_API_KEY');
    expect(run.error.message).toContain('[REDACTED]');
    const everything = JSON.stringify([
      run,
      await events(id),
      (await api('GET', `/v1/runs/${id}/status?include_details=true`)).body,
    ]);
    expect(everything).not.toContain(KEY);
  });

  it('fails planning with the key redacted from the planning_failed message and trace', async () => {
    refusingKey();
    const r = await api('POST', '/v1/plans', { goal: 'plan my holiday' });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('planning_failed');
    expect(r.body.error.message).toContain('llm_auth_failed');
    expect(JSON.stringify(r.body)).not.toContain(KEY);
  });
});
