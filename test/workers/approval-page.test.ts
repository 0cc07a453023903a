/**
 * The approval link opened in a browser (#13): `GET /v1/runs/:id/approval?token=` answers a page with
 * the plan and its estimates, with no API token; a wrong token is 403, the page spends nothing, and
 * once the link decided, it is 410.
 */
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/http/app';
import { APPROVER_URL, runAwaitingApproval } from './approval-helpers';

const plan = {
  goal: 'approve me',
  steps: [
    { id: 'a', action: 'demo.echo', parameters: { id: 'a' }, dependencies: [] },
    { id: 'b', action: 'demo.echo', parameters: { id: 'b' }, dependencies: ['a'] },
  ],
};
const config = {
  require_plan_approval: true,
  approval: { webhook_url: APPROVER_URL },
};

/** The app with an API token set: only the link's token lets a request in. */
const app = createApp();
const withToken = { ...env, API_TOKEN: 'secret-token' };
const open = (runId: string, token: string) =>
  app.fetch(
    new Request(`http://edgeplan.test/v1/runs/${runId}/approval?token=${encodeURIComponent(token)}`),
    withToken,
  );

const awaitingApproval = () => runAwaitingApproval(plan, config);

afterEach(() => vi.restoreAllMocks());

describe('GET /v1/runs/:id/approval?token= (the approval link’s page)', () => {
  it('shows the plan and its estimates with no API token, and spends nothing', async () => {
    const { runId, token } = await awaitingApproval();
    const res = await open(runId, token);
    expect(res.status).toBe(200);
    // The page holds the link's token and the plan: no cache, the browser's or a proxy's, keeps it.
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).toContain('<script type="module" src="/app/app.js"></script>');
    const data = JSON.parse(
      /<script type="application\/json" id="edgeplan-data">([\s\S]*?)<\/script>/.exec(html)![1]!,
    ) as {
      approval: {
        run_id: string;
        token: string;
        plan: { steps: { id: string }[] };
        estimates: { step_count: number };
      };
    };
    expect(data.approval.run_id).toBe(runId);
    expect(data.approval.token).toBe(token);
    expect(data.approval.plan.steps.map((s) => s.id)).toEqual(['a', 'b']);
    expect(data.approval.estimates.step_count).toBe(2);
    // Opening it again still works: the page spent nothing.
    expect((await open(runId, token)).status).toBe(200);
    // The decision with the same token is accepted, once; then the page says the link is used.
    const decided = await app.fetch(
      new Request(`http://edgeplan.test/v1/runs/${runId}/approval?token=${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'approve' }),
      }),
      withToken,
    );
    expect(decided.status).toBe(200);
    const used = await open(runId, token);
    expect(used.status).toBe(410);
    expect(await used.text()).toMatch(/already been used|nothing to approve/);
  });

  it('answers HEAD as GET without the body — a mail scanner checking the link is not told 401 — and spends nothing', async () => {
    const { runId, token } = await awaitingApproval();
    const head = (t: string) =>
      app.fetch(
        new Request(`http://edgeplan.test/v1/runs/${runId}/approval?token=${encodeURIComponent(t)}`, {
          method: 'HEAD',
        }),
        withToken,
      );
    const ok = await head(token);
    expect([ok.status, ok.headers.get('content-type'), ok.headers.get('cache-control')]).toEqual([
      200,
      'text/html; charset=UTF-8',
      'no-store',
    ]);
    expect((await head('apv_wrong')).status).toBe(403);
    expect((await open(runId, token)).status).toBe(200);
  });

  it("carries the run's limits, and its input as kinds, for Modify's check — none of the input's values", async () => {
    const secrets = ['wait-5s-Qx81Zr', 'note-K9vT2w', 'proto-Pm4Ls7', 73914826051];
    // JSON text, as a caller sends it: "__proto__" is a key of the input, and of its shape.
    const input = JSON.parse(
      `{"wait":"${secrets[0]}","deep":{"note":"${secrets[1]}","ids":[${secrets[3]},true,null]},"__proto__":"${secrets[2]}"}`,
    ) as unknown;
    const limited = { ...config, max_steps: 7, token_budget: 50_000 };
    const { runId, token } = await runAwaitingApproval(plan, limited, input);
    const html = await (await open(runId, token)).text();
    const data = JSON.parse(
      /<script type="application\/json" id="edgeplan-data">([\s\S]*?)<\/script>/.exec(html)![1]!,
    ) as { approval: Record<string, unknown> };
    expect(data.approval.input_shape).toEqual(
      JSON.parse(
        '{"wait":"string","deep":{"note":"string","ids":["number","boolean","null"]},"__proto__":"string"}',
      ),
    );
    expect(Object.keys(data.approval).filter((k) => k.includes('input'))).toEqual(['input_shape']);
    // The run's own limits, which an edit is held to, beside it.
    expect(data.approval.limits).toEqual({
      max_steps: 7,
      max_depth: 3,
      token_budget: 50_000,
      require_fallbacks: false,
    });
    for (const secret of secrets) expect(html).not.toContain(String(secret));
  });

  it('answers a wrong token, and an unknown run, with the same 403 page', async () => {
    const { runId } = await awaitingApproval();
    const wrong = await open(runId, 'apv_wrong');
    const unknown = await open('run_doesnotexist', 'apv_wrong');
    expect(wrong.status).toBe(403);
    expect(unknown.status).toBe(403);
    expect(await wrong.text()).toBe(await unknown.text());
  });
});
