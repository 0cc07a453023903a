/**
 * Goal runs planned through `wrangler dev`'s real Worker fetch against an OpenAI-compatible endpoint
 * on loopback that answers as real servers do (test/e2e/quirky-llm-server.ts): what a user sees — the
 * run's status and error, its plan, its planning trace, the CLI — for a reasoning model streaming a
 * fenced plan, a model the server does not have, a key Cloudflare refuses, a base URL that serves a
 * web page, and a primary model that never answers while a fallback would.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completion, error, hang, startQuirkyLlm, stream } from './quirky-llm-server';
import { inspectorArgs, pinnedPort } from './pinned-port';
import { serverApi } from './server-api';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * This file's ports when EDGEPLAN_E2E_PORT pins them (the server, its inspector, the LLM); else free ones.
 */
const PORT = pinnedPort();
const LLM_PORT = PORT === undefined ? 0 : PORT + 2;

const root = process.cwd();
const cli = join(mkdtempSync(join(tmpdir(), 'edgeplan-providers-')), 'edgeplan.mjs');
let server: { base: string; stop(): Promise<void> } | undefined;
let llm: Awaited<ReturnType<typeof startQuirkyLlm>>;
const { call, get } = serverApi(() => server!.base);

beforeAll(async () => {
  execFileSync(process.execPath, [join(root, 'scripts/build-cli.mjs'), '--out', cli], { cwd: root });
  llm = await startQuirkyLlm(LLM_PORT);
  server = (await startDevServer({
    name: 'planner-providers-e2e',
    port: PORT,
    extraArgs: [
      ...inspectorArgs(PORT),
      '--var',
      `OPENAI_BASE_URL:${llm.url}`,
      '--var',
      'OPENAI_API_KEY:sk-quirky-0123456789',
      '--var',
      'PLANNER_MODEL:primary',
      '--var',
      'PLANNER_FALLBACK_MODELS:backup',
    ],
  })) as typeof server;
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await llm?.close();
});

const step = (id: string, dependencies: string[] = []) => ({
  id,
  description: `echo ${id}`,
  action: 'demo.echo',
  parameters: { id },
  dependencies,
});
const line = (s: unknown) => `${JSON.stringify({ type: 'step', step: s })}\n`;
const planText = (...steps: unknown[]) => JSON.stringify({ steps });

async function startGoal(goal: string, config: Record<string, unknown> = {}): Promise<string> {
  const r = await call('POST', '/v1/runs', { goal, config });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.run_id as string;
}

/** The run once it has ended (the test's timeout bounds the wait). */
async function ended(id: string): Promise<Json> {
  for (;;) {
    const run = await get(`/v1/runs/${id}`);
    if (['completed', 'failed', 'cancelled'].includes(run.status as string)) return run;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('planning against the servers teams point edgeplan at, through wrangler dev', () => {
  it('runs the plan a reasoning model streams after its <think> block, in a code fence, ending with a usage chunk without choices', async () => {
    llm.script('think-fenced', 'primary', [
      stream([
        '<think>\nThe user wants two echoes. A draft:\n',
        line(step('draft')),
        'no, better with two.\n</think>\n```json\n',
        line(step('first')),
        line(step('second', ['first'])),
        '```\n',
      ]),
    ]);
    const id = await startGoal('think-fenced: echo twice');
    const run = await ended(id);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    const plan = run.plan as Json;
    expect((plan.steps as { id: string }[]).map((s) => s.id)).toEqual(['first', 'second']);
  }, 60_000);

  it('plans with the fallback model when the server does not have the first, and the trace says which name to check', async () => {
    const missing = error(404, { error: 'model "primary" not found, try pulling it first' });
    llm.script('missing-model', 'primary', [missing, missing]);
    llm.script('missing-model', 'backup', [completion(planText(step('only')))]);
    const id = await startGoal('missing-model: echo once');
    const run = await ended(id);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    const trace = await get(`/v1/runs/${id}/planning`);
    const text = JSON.stringify(trace);
    expect(text).toContain('model \\"primary\\" not found, try pulling it first — check the model name');
    expect(text).toContain('"outcome":"ok"');
    const plan = run.plan as Json;
    expect(plan.metadata).toMatchObject({ model: 'backup' });
    // The stream found no such model; it was not asked again for a whole plan.
    expect(llm.calls.filter((c) => c.tag === 'missing-model').map((c) => c.model)).toEqual([
      'primary',
      'backup',
    ]);
  }, 60_000);

  it("fails a key Cloudflare refuses with Cloudflare's own words and the variable to fix, in the API and the CLI", async () => {
    const refused = error(403, {
      success: false,
      errors: [{ code: 10000, message: 'Authentication error' }],
      messages: [],
      result: null,
    });
    llm.script('refused-key', '*', [refused, refused, refused, refused]);
    const id = await startGoal('refused-key: echo once');
    const run = await ended(id);
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('planning_failed');
    expect(run.error.message).toContain(
      'answered 403 Authentication error (code 10000) — check OPENAI_API_KEY',
    );
    expect(run.error.message).not.toContain('"errors"');
    expect(run.error.message).not.toContain('sk-quirky-0123456789');
    const shown = spawnSync(process.execPath, [cli, 'runs', 'show', id], {
      env: { ...process.env, EDGEPLAN_URL: server!.base, NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(`${shown.stdout}${shown.stderr}`).toContain(
      'Authentication error (code 10000) — check OPENAI_API_KEY',
    );
  }, 60_000);

  it('fails a base URL that serves a web page with llm_invalid_response naming the page and the URL to check', async () => {
    const page = error(
      200,
      '<!DOCTYPE html><html><head><title>Sign in · Example SSO</title></head><body>…</body></html>',
      'text/html',
    );
    llm.script('web-page', '*', [page, page, page, page]);
    const id = await startGoal('web-page: echo once');
    const run = await ended(id);
    expect(run.status).toBe('failed');
    expect(run.error.message).toContain(
      `llm_invalid_response: LLM at ${llm.url} (model backup) answered an HTML page ("Sign in · Example SSO") instead of a chat completion`,
    );
    expect(run.error.message).toContain('OPENAI_BASE_URL');
  }, 60_000);

  it('plans with the fallback when the first model never answers, well inside the planning deadline', async () => {
    llm.script('hung-primary', 'primary', [hang, hang, hang]);
    llm.script('hung-primary', 'backup', [completion(planText(step('rescued')))]);
    const id = await startGoal('hung-primary: echo once', { planning_timeout_s: 2 });
    const run = await ended(id);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    const asked = llm.calls.filter((c) => c.tag === 'hung-primary').map((c) => c.model);
    // The stream timed out on the primary; it was not asked again (nor retried) before the fallback.
    expect(asked).toEqual(['primary', 'backup']);
  }, 60_000);
});
