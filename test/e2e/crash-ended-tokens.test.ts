/**
 * A run cancelled while its planning — or its revision — is with the model, after a real crash cut
 * that work once: `wrangler dev`'s process group is SIGKILLed while the model's repair of a first
 * answer is held, started again on the same state and port, where the run's alarm asks again and the
 * repair is held again; then the run is cancelled. Its `token_usage` is what its planning trace lists:
 * the answered calls of the issue lost with the server and of the one the cancel ended.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plannerVars, startScriptedLlm } from './scripted-llm-server';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';
import { serverApi } from './server-api';
import { inspectorArgs, pinnedPort } from './pinned-port';

type Dev = { base: string; port: number; persist: string; stop(): Promise<void>; kill(): Promise<void> };
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const NAME = 'edgeplan-crash-ended-tokens';
const PLANNED = `planned-${Math.random().toString(36).slice(2)}`;
const REVISED = `revised-${Math.random().toString(36).slice(2)}`;

const llm = await startScriptedLlm();
/** Never let go: a held answer is cut by the kill, or by the cancel. */
const never = new Promise<void>(() => undefined);
const pinned = pinnedPort();
const ARGS = [...plannerVars(llm.url), '--log-level', 'error', ...inspectorArgs(pinned)];

let server: Dev;
const { call, get } = serverApi(() => server.base);

const step = (id: string, action: string, dependencies: string[] = []) => ({
  id,
  description: id,
  action,
  parameters: { id },
  dependencies,
});
const ask = { id: 'ask', action: 'human.input', parameters: { prompt: 'Ship it?' }, dependencies: ['a'] };
/** A first answer with a finding (its tokens spent), then its repair, held. */
const answered = (steps: unknown[]) => [JSON.stringify({ steps }), { pieces: ['{}'], held: never }];
const runs = { planned: '', revised: '' };

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (const end = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 100))) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: not in time (last: ${JSON.stringify(v).slice(0, 500)})`);
  }
}
const callsOf = (tag: string) => Promise.resolve(llm.calls.filter((c) => c.tag === tag).length);

beforeAll(async () => {
  server = (await startDevServer({ name: NAME, port: pinned, extraArgs: ARGS })) as Dev;
  // Each issue answers with a plan naming no tool there is, and its repair is held.
  const noSuchTool = [step('a', 'demo.no_such_tool')];
  llm.script(PLANNED, [...answered(noSuchTool), ...answered(noSuchTool)]);
  const created = await call('POST', '/v1/runs', {
    goal: `echo once (${PLANNED})`,
    config: { require_plan_approval: true },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  runs.planned = created.body.run_id as string;

  const revision = [step('a', 'demo.echo'), ask, step('b', 'demo.no_such_tool', ['ask'])];
  llm.script(REVISED, [...answered(revision), ...answered(revision)]);
  const started = await call('POST', '/v1/runs', {
    plan: { goal: `ask, then echo (${REVISED})`, steps: [step('a', 'demo.echo'), ask] },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  runs.revised = started.body.run_id as string;
  await until(
    'the question asked',
    () => get(`/v1/runs/${runs.revised}`),
    (r) => r.status === 'awaiting_input',
  );
  const replan = await call('POST', `/v1/runs/${runs.revised}/replan`, { reason: 'add b' });
  expect(replan.status, JSON.stringify(replan.body)).toBe(200);

  await until(
    'both repairs asked',
    () => Promise.all([callsOf(PLANNED), callsOf(REVISED)]),
    (n) => n.every((c) => c === 2),
  );
  await server.kill();
  server = (await startDevServer({
    name: NAME,
    persist: server.persist,
    port: server.port,
    extraArgs: ARGS,
  })) as Dev;
  // The runs' alarms ask again: each new issue's repair is held too.
  await until(
    'both asked again',
    () => Promise.all([callsOf(PLANNED), callsOf(REVISED)]),
    (n) => n.every((c) => c === 4),
  );
}, 180_000);

afterAll(async () => {
  await server?.stop();
  if (server) rmSync(server.persist, { recursive: true, force: true });
  await llm.close();
});

/** The run cancelled; its token_usage and what its planning trace adds up to. */
async function cancelled(id: string): Promise<{ run: Json; attempts: Json[]; listed: Json }> {
  const r = await call('POST', `/v1/runs/${id}/cancel`, { reason: 'enough' });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const run = await until(
    `run ${id} cancelled`,
    () => get(`/v1/runs/${id}`),
    (x) => x.status === 'cancelled',
  );
  const attempts = (await get(`/v1/runs/${id}/planning`)).attempts as Json[];
  const sum = (k: string) => attempts.reduce((n, a) => n + (a[k] as number), 0);
  const listed = {
    prompt_tokens: sum('prompt_tokens'),
    completion_tokens: sum('completion_tokens'),
    total_tokens: sum('prompt_tokens') + sum('completion_tokens'),
  };
  return { run, attempts, listed };
}

describe('a run cancelled while its planning is with the model, after a crash cut it once', () => {
  it('counts the answered calls of both planning issues', async () => {
    const { run, attempts, listed } = await cancelled(runs.planned);
    // The lost issue's answer and the cancelled one's; the repairs never answered.
    expect(attempts.filter((a) => a.outcome === 'invalid')).toHaveLength(2);
    expect(listed.total_tokens).toBeGreaterThan(0);
    expect(run.token_usage).toEqual(listed);
  });

  it('counts the answered calls of both revision issues', async () => {
    const { run, attempts, listed } = await cancelled(runs.revised);
    expect(attempts.filter((a) => a.outcome === 'invalid')).toHaveLength(2);
    expect(listed.total_tokens).toBeGreaterThan(0);
    expect(run.token_usage).toEqual(listed);
  });
});
