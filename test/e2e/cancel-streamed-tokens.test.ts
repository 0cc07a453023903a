/**
 * A goal run cancelled while its plan still streams in from a real HTTP model (`wrangler dev`, a
 * scripted OpenAI-compatible server on loopback): the stream has sent one step, which ran, and is
 * held open. The cancel cuts it; what had streamed was paid for, the planning trace estimates it, and
 * the run's `token_usage` counts the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ndjson, plannerVars, startScriptedLlm } from './scripted-llm-server';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';
import { serverApi } from './server-api';
import { inspectorArgs, pinnedPort } from './pinned-port';

type Dev = { base: string; stop(): void };
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const TAG = `streamed-${Math.random().toString(36).slice(2)}`;
const llm = await startScriptedLlm();
const pinned = pinnedPort();
let server: Dev;
const { call, get } = serverApi(() => server.base);

beforeAll(async () => {
  server = (await startDevServer({
    name: 'edgeplan-cancel-streamed-tokens',
    port: pinned,
    extraArgs: [...plannerVars(llm.url), '--log-level', 'error', ...inspectorArgs(pinned)],
  })) as Dev;
}, 120_000);

afterAll(async () => {
  server?.stop();
  await llm.close();
});

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (const end = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 100))) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: not in time (last: ${JSON.stringify(v).slice(0, 500)})`);
  }
}

describe('a goal run cancelled while its plan streams in', () => {
  it('counts what had streamed, as its planning trace estimates it', async () => {
    const a = { id: 'a', description: 'a', action: 'demo.echo', parameters: { id: 'a' }, dependencies: [] };
    const b = { ...a, id: 'b', parameters: { id: 'b' } };
    // The first line now; the second waits for a release that never comes.
    llm.script(TAG, [{ pieces: ndjson([a, b]), held: new Promise<void>(() => undefined) }]);
    const created = await call('POST', '/v1/runs', {
      goal: `echo twice (${TAG})`,
      config: { execution_mode: 'sequential' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.run_id as string;
    await until(
      'the streamed step ran',
      () => get(`/v1/runs/${id}`),
      (r) => r.step_statuses?.a === 'completed',
    );
    const cancelled = await call('POST', `/v1/runs/${id}/cancel`, { reason: 'enough' });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    const run = await get(`/v1/runs/${id}`);
    expect(run.status).toBe('cancelled');
    const attempts = (await get(`/v1/runs/${id}/planning`)).attempts as Json[];
    expect(attempts.map((x) => [x.outcome, x.tokens_estimated])).toEqual([['call_error', true]]);
    const prompt = attempts.reduce((n, x) => n + (x.prompt_tokens as number), 0);
    const completion = attempts.reduce((n, x) => n + (x.completion_tokens as number), 0);
    expect(prompt).toBeGreaterThan(0);
    expect(run.token_usage).toEqual({
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    });
  });
});
