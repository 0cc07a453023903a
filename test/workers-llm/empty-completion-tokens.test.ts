/**
 * A completion with no choices — what servers answer when a content filter blocks the prompt or the
 * answer — is a call the model answered and billed, and it says so in its `usage`: planning lists it in
 * its trace with those tokens, the judge lets the output stand, and either way the
 * run's `token_usage` counts it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm, type Reply } from '../unit/planner-helpers';
import { describedEcho as echo } from '../fixtures/echo-steps';
import { api, events, startRun, waitForRun, type Json } from '../workers/helpers';

afterEach(() => setLlmFetch(null));

const filtered = { prompt_tokens: 55, completion_tokens: 0 };

/** In a script: a completion without choices that cost `filtered`. */
const EMPTY = { empty: true } as const;

/** The scripted endpoint, answering {@link EMPTY} with a completion without choices. */
function withEmpty(script: (Reply | typeof EMPTY)[]) {
  const llm = scriptedLlm(script.map((r) => (r === EMPTY ? 'unused' : (r as Reply))));
  let n = 0;
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const res = await llm.fetch(input, init);
    if (script[n++] !== EMPTY) return res;
    return Response.json({
      id: 'chatcmpl-f',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'm',
      choices: [],
      usage: { ...filtered, total_tokens: filtered.prompt_tokens },
    });
  };
  return { fetch, sent: llm.sent };
}

describe('a completion without choices', () => {
  it('counts in planning’s trace and the run’s token_usage', async () => {
    const llm = withEmpty([EMPTY]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', { goal: 'echo', config: { require_plan_approval: true } });
    expect(r.status).toBe(201);
    const run = await waitForRun(r.body.run_id as string);
    expect(run.error.code).toBe('planning_failed');
    expect(run.error.message).toContain('llm_empty_response');
    const attempts = (await api('GET', `/v1/runs/${run.run_id}/planning`)).body.attempts as Json[];
    expect(attempts.map((a) => [a.outcome, a.prompt_tokens, a.completion_tokens])).toEqual([
      ['call_error', 55, 0],
    ]);
    expect(run.token_usage).toEqual({ prompt_tokens: 55, completion_tokens: 0, total_tokens: 55 });
  });

  it('from the judge lets the output stand and counts its tokens', async () => {
    const llm = withEmpty([EMPTY]);
    setLlmFetch(llm.fetch);
    const judged = { ...echo('a'), expected_output: 'an id', parameters: { id: 'a' } };
    const runId = await startRun({ steps: [judged] });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(llm.sent).toHaveLength(1);
    const [reflection] = (await events(runId)).filter((e) => e.event_type === 'ReflectionAdded');
    expect(reflection!.payload.reflection).toContain('the judge could not answer');
    expect(reflection!.payload.tokens).toEqual({ prompt: 55, completion: 0 });
    expect(run.token_usage).toEqual({ prompt_tokens: 55, completion_tokens: 0, total_tokens: 55 });
  });
});
