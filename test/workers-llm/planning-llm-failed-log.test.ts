/**
 * A goal run whose planning fails because no LLM call got an answer — the key refused, the provider
 * down — is logged as `planning_llm_failed` with the run and the call's code (docs/operating.md): the
 * deployment's to fix, for every goal run at once, which the run's own error tells nobody watching the
 * log. A model that answers badly is the run's failure, not the operator's: no line. Through the
 * Worker's API, with the planner's calls answered by a scripted endpoint.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm, type Reply } from '../unit/planner-helpers';
import { api, waitForRun, type Json } from '../workers/helpers';

afterEach(() => {
  setLlmFetch(null);
  vi.restoreAllMocks();
});

/** Plans goal run `goal` against `replies`; its end, and the log lines (console.error) about it. */
async function planned(replies: Reply[]) {
  setLlmFetch(scriptedLlm(replies).fetch);
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  const r = await api('POST', '/v1/runs', { goal: `xylophone quorum ${crypto.randomUUID()}` });
  expect(r.status).toBe(201);
  const runId = r.body.run_id as string;
  const run = await waitForRun(runId);
  const lines = errors.mock.calls
    .map((args) => JSON.parse(String(args[0])) as Json)
    .filter((l) => l.run_id === runId);
  return { run, lines };
}

describe('planning whose LLM calls get no answer', () => {
  it('is logged as planning_llm_failed with the run, the code and what to fix (a refused key)', async () => {
    const refused: Reply = { status: 401, error: 'Incorrect API key provided: sk-live-abcdefghijklmnop' };
    const { run, lines } = await planned([refused, refused, refused, refused]);
    expect(run.status).toBe('failed');
    expect(lines).toEqual([
      {
        level: 'error',
        event: 'planning_llm_failed',
        message: expect.stringContaining('check OPENAI_API_KEY'),
        run_id: run.run_id,
        code: 'llm_auth_failed',
        count: expect.any(Number),
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain('sk-live-abcdefghijklmnop');
  });

  it('is not logged when the model answered, however badly', async () => {
    const junk = 'I cannot make a plan, sorry';
    const { run, lines } = await planned([junk, junk, junk, junk, junk, junk]);
    expect(run.status).toBe('failed');
    expect((run.error as Json).code).toBe('planning_failed');
    expect(lines.filter((l) => l.event === 'planning_llm_failed')).toEqual([]);
  });
});
