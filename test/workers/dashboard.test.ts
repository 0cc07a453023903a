import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app';
import { DEMO_CONFIG, DEMO_PLAN } from '../../src/ui/demo-plan';
import { api, events, startRun, waitForRun } from './helpers';

const get = (path: string) => exports.default.fetch(new Request(`http://edgeplan.test${path}`));

/** The policy's directives by name. */
function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

describe('GET / (the dashboard)', () => {
  it('serves the app shell: the app’s script and stylesheet from this Worker’s assets', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/html; charset=utf-8/i);
    const html = await res.text();
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html).toContain('<script type="module" src="/app/app.js"></script>');
    expect(html).toContain('<link rel="stylesheet" href="/app/app.css">');
    expect(html).toContain('<div id="app">');
  });

  it('allows scripts from this origin only, and only same-origin connections', async () => {
    const res = await get('/');
    const csp = directives(res.headers.get('Content-Security-Policy') ?? '');
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect([...csp.values()].flat().join(' ')).not.toMatch(/unsafe-eval|https?:|\*/);
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
  });

  it('stays public when API_TOKEN is set, while /v1 asks for the token', async () => {
    const app = createApp();
    const withToken = { ...env, API_TOKEN: 't' };
    const page = await app.fetch(new Request('http://edgeplan.test/'), withToken);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/app/app.js');
    const runs = await app.fetch(new Request('http://edgeplan.test/v1/runs'), withToken);
    expect(runs.status).toBe(401);
  });

  it('is documented in the OpenAPI document as text/html, without bearer security', async () => {
    const doc = await (await get('/openapi.json')).json<{ paths: Record<string, Record<string, unknown>> }>();
    expect(doc.paths['/']).toMatchObject({
      get: { responses: { 200: { content: { 'text/html': expect.any(Object) } } } },
    });
    // Public: an explicit empty requirement, so no bearer token.
    expect((doc.paths['/']!.get as { security?: unknown[] }).security).toEqual([]);
  });
});

describe('the demo plan the dashboard is prefilled with', () => {
  it('validates with its config, with estimates', async () => {
    const r = await api('POST', '/v1/plans/validate', { plan: DEMO_PLAN, config: DEMO_CONFIG });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ valid: true, errors: [], estimates: { step_count: 4, max_width: 2 } });
  });

  it('runs to completion, carrying a’s output through b into d', async () => {
    const runId = await startRun(DEMO_PLAN, DEMO_CONFIG);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.d).toEqual({ greeting: 'b says: hello from edgeplan', side: 'side branch done' });
    const types = (await events(runId)).map((e) => e.event_type);
    expect(types.at(-1)).toBe('RunTerminated');
  });
});
