/**
 * `replan_run` at `/mcp` with a planner configured (the scripted LLM): the revision a user asks for
 * while the run goes on, asked by an agent through the SDK's Client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { call, connect, echo } from '../workers/mcp-client';

afterEach(() => setLlmFetch(null));

describe('replan_run at /mcp', () => {
  it('revises the rest of the plan while the run goes on, keeping what completed', async () => {
    const wait = (ms: number) => ({
      id: 'wait',
      action: 'demo.sleep',
      parameters: { ms },
      dependencies: ['a'],
    });
    const revised = [echo('a', { id: 'a' }), wait(10), echo('extra', { id: 'extra' }, ['wait'])];
    const llm = scriptedLlm([JSON.stringify({ steps: revised })]);
    setLlmFetch(llm.fetch);
    const client = await connect();
    const started = await call(client, 'start_run', {
      plan: { goal: 'echo, then wait', steps: [echo('a', { id: 'a' }), wait(300)] },
    });
    const runId = started.structuredContent!.run_id as string;
    const r = await call(client, 'replan_run', { run_id: runId, reason: 'also echo at the end' });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
    expect(r.structuredContent).toMatchObject({ run_id: runId });
    const done = await call(client, 'wait_for_run', { run_id: runId, timeout_s: 30 });
    expect(done.structuredContent).toMatchObject({
      timed_out: false,
      run: {
        status: 'completed',
        revision_count: 1,
        step_results: { a: { id: 'a' }, extra: { id: 'extra' } },
        steps: { a: { attempts: 1 } },
      },
    });
    expect(JSON.stringify(llm.sent[0]!.body.messages)).toContain('also echo at the end');
    await client.close();
  });
});
