/**
 * The approval link's page of a version a newer one replaced — a rollback asked the approver about
 * another version, and a new link went out: a decision sent from it is refused `410
 * approval_link_superseded`, and the page says which version it asked about and which awaits now, in
 * place of its comment form and buttons, and marks the plan still drawn below as what it asked about
 * then (not the plan awaiting a decision); opened afresh, the link's page says the same. In chromium
 * against `wrangler dev` with a scripted LLM and a real webhook receiver; screenshots go to
 * test-results/screenshots/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardSetup } from './dashboard-setup';
import { plannerVars, startScriptedLlm } from './scripted-llm-server';
import { describedEcho as echo } from '../fixtures/echo-steps';

let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
beforeAll(async () => {
  llm = await startScriptedLlm();
});
afterAll(async () => {
  await llm?.close();
});
const { env, api, waitForStatus, shot } = dashboardSetup('dashboard-superseded-link', {
  webhooks: true,
  extraArgs: () => plannerVars(llm.url),
});

/** A run whose planner-written v2 awaits approval (v1 approved through the API), and v2's link. */
async function revisionAwaiting() {
  const flaky = { fail_times: 99, key: 'dashboard-superseded-link', permanent: true };
  llm.script('superseded', [
    JSON.stringify({
      steps: [
        echo('fetch'),
        { id: 'parse', action: 'demo.flaky', parameters: flaky, dependencies: ['fetch'] },
      ],
    }),
    JSON.stringify({ steps: [echo('fetch'), echo('parse2', ['fetch'])] }),
  ]);
  const { run_id: runId } = (await api('POST', '/v1/runs', {
    goal: 'superseded: fetch, parse',
    config: {
      execution_mode: 'sequential',
      require_plan_approval: true,
      approval: { webhook_url: env.hooks.url, revisions: 'ask' },
    },
  })) as { run_id: string };
  await waitForStatus(runId, 'awaiting_approval');
  await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve', plan_version: 1 });
  const link = await env.hooks.approvalLink(runId, 2);
  return { runId, link };
}

describe('the approval link’s page of a version a newer link replaced', () => {
  it('says which version it asked about and which awaits now, in place of its controls', async () => {
    const { runId, link } = await revisionAwaiting();
    const page = await env.browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${env.server.base}${link.pathname}${link.search}`);
    await page.getByRole('button', { name: 'Approve', exact: true }).waitFor({ timeout: 20_000 });

    // Meanwhile a rollback puts v1's content in v2's place as v3, and asks about it with a new link.
    const rolled = (await api('POST', `/v1/runs/${runId}/rollback`, { version: 1 })) as {
      plan_version: number;
    };
    expect(rolled.plan_version).toBe(3);
    const newer = await env.hooks.approvalLink(runId, 3);
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    const status = page.locator('p.gone[role="status"]');
    await status.waitFor({ timeout: 15_000 });
    const said = await status.innerText();
    expect(said).toContain('asked about plan version 2');
    expect(said).toContain('Version 3 now awaits approval');
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe(
      'This approval link no longer works',
    );
    for (const name of ['Approve', 'Reject', 'Modify'])
      await expect(page.getByRole('button', { name, exact: true }).count()).resolves.toBe(0);
    await expect(page.getByRole('textbox').count()).resolves.toBe(0);
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    // v2's plan stays below for reference, marked as what the link asked about — every step of it
    // inside that section, none left where the plan awaiting a decision was drawn.
    const asked = page.locator('[data-asked-before]');
    await expect(asked.locator('h2#asked-before').innerText()).resolves.toBe(
      'What this link asked about (plan version 2), as it was then',
    );
    // Its table is titled as what the link asked, not as steps that still await: fetch, done under v1,
    // is kept; parse2 is what approving v2 would have run.
    await expect(asked.locator('#approve-steps-title').innerText()).resolves.toBe(
      '1 step it asked to approve',
    );
    await expect(page.getByText(/\bsteps? to approve\b/).count()).resolves.toBe(0);
    const inside = await asked.locator('[data-step-id]').count();
    expect(inside).toBeGreaterThan(0);
    await expect(page.locator('[data-step-id]').count()).resolves.toBe(inside);
    await shot(page, 'superseded-link-decided');

    // Opened again, the old link's page says the same, with nothing to press.
    const reopened = await page.goto(`${env.server.base}${link.pathname}${link.search}`);
    expect(reopened?.status()).toBe(410);
    const body = await page.locator('body').innerText();
    expect(body).toContain('asked about plan version 2');
    expect(body).toContain('Version 3 now awaits approval');
    await expect(page.getByRole('button', { name: 'Approve', exact: true }).count()).resolves.toBe(0);
    await shot(page, 'superseded-link-opened');

    // The newer link decides: nothing was spent or decided by the old one.
    await page.goto(`${env.server.base}${newer.pathname}${newer.search}`);
    await page.getByRole('button', { name: 'Reject', exact: true }).click();
    await page.locator('p.ok[role="status"]').waitFor({ timeout: 15_000 });
    // Decided, the link's steps are what it asked about: v3 (v1's content) runs parse, fetch kept.
    await expect(page.locator('#approve-steps-title').innerText()).resolves.toBe(
      '1 step it asked to approve',
    );
    await waitForStatus(runId, 'cancelled');
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);
});
