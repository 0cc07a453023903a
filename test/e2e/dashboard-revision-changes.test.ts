/**
 * Where an approver decides on a revision (`approval.revisions: "ask"`), the first thing they see is
 * what it changes since the version they approved, and why the planner wrote it — on the run page and
 * on the approval link's page, in chromium against `wrangler dev` with a scripted LLM and a real
 * webhook receiver. The name each decider types is sent with the decision and shown in the history.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from './axe';
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
const { env, api, waitForStatus, open, shot, revisingGoal } = dashboardSetup(
  'dashboard-revision-changes-e2e',
  {
    webhooks: true,
    extraArgs: () => plannerVars(llm.url),
  },
);

type Json = Record<string, unknown>;

describe('approving a revision', () => {
  it('shows what it changes since the approved version first, on the run page and the link; records each name', async () => {
    const flaky = { fail_times: 99, key: 'dashboard-revision-changes', permanent: true };
    const run_id = await revisingGoal(
      llm,
      'revise-and-show: fetch, parse, report',
      [
        echo('fetch'),
        { id: 'parse', action: 'demo.flaky', parameters: flaky, dependencies: ['fetch'] },
        echo('report', ['parse'], { format: 'short' }),
      ],
      [echo('fetch'), echo('parse2', ['fetch']), echo('report', ['parse2'], { format: 'long' })],
    );

    // The first plan: nothing approved before it, so no changes section. The name typed goes with Approve.
    const { page, errors } = await open(`/#/runs/${run_id}`);
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    expect(await page.locator('.approval-changes').count()).toBe(0);
    await page.getByLabel(/^Your name/).fill('Ada Lovelace');
    await page.getByRole('button', { name: 'Approve' }).click();

    // parse fails; the planner writes v2, which waits: the page shows what v2 changes, above all else.
    const section = page.locator('.approval-changes[data-approval-changes="2"]');
    await section.waitFor({ timeout: 20_000 });
    await expect(section.locator('[data-approval-summary]').innerText()).resolves.toBe(
      'v2 adds 1 step, changes 1 and removes 1 since v1 was approved',
    );
    await expect(section.locator('[data-revision-cause="2"]').innerText()).resolves.toMatch(
      /^Why: v2 \(revision after step parse failed\): step "parse" failed/,
    );
    await expect(section.locator('[data-change="added"]').innerText()).resolves.toMatch(
      /^added parse2 demo\.echo · after fetch — echo parse2$/,
    );
    await expect(section.locator('[data-change="changed"][data-step="report"]').innerText()).resolves.toMatch(
      /^changed report: parameters format; depends on \+parse2 −parse\n?format: "short" → "long"$/,
    );
    await expect(section.locator('[data-change="removed"]').innerText()).resolves.toBe(
      'removed parse demo.flaky',
    );
    // First in the approval section: above the name and comment, on the first screen.
    const box = (await section.boundingBox())!;
    const comment = (await page.locator('.decision-inputs').boundingBox())!;
    expect(box.y).toBeLessThan(comment.y);
    expect(box.y + box.height).toBeLessThan(900);
    // The name remembered from the first decision, and the history says who approved v1.
    await expect(page.getByLabel(/^Your name/).inputValue()).resolves.toBe('Ada Lovelace');
    // The name as typed, and how it was established: an open API (no token), no sign-in.
    await expect(page.locator('.approval-note').innerText()).resolves.toBe(
      'Plan v1 approved by “Ada Lovelace” (given without signing in)',
    );
    // The table of steps to approve holds what approving v2 runs, the new and the changed ones marked,
    // counted in its heading; fetch, done under v1 and kept, is set apart below it, collapsed.
    const marked = (where: Page, table = 'table.plan-steps') =>
      where
        .locator(`${table} tbody tr`)
        .evaluateAll((rows) =>
          rows.map((r) => [
            r.getAttribute('data-plan-step'),
            r.getAttribute('data-change') ?? r.getAttribute('data-kept'),
          ]),
        );
    const approve = page.getByRole('region', { name: '2 steps to approve' });
    await approve.waitFor();
    await expect(marked(page, 'section.approve-steps > table.plan-steps')).resolves.toEqual([
      ['parse2', 'added'],
      ['report', 'changed'],
    ]);
    const kept = approve.locator('details.kept-steps');
    await expect(kept.locator('summary').innerText()).resolves.toBe(
      '1 step already done — kept from before, not run again',
    );
    await expect(kept.getAttribute('open')).resolves.toBeNull();
    expect(await kept.locator('table.plan-steps').isVisible()).toBe(false);
    await kept.locator('summary').click();
    await expect(marked(page, 'details.kept-steps table.plan-steps')).resolves.toEqual([['fetch', 'done']]);
    await expect(kept.locator('[data-plan-step="fetch"] .kept-mark').innerText()).resolves.toBe(
      'already done',
    );
    await approve.scrollIntoViewIfNeeded();
    await shot(page, 'revision-changes-run-page');

    // The webhook for v2 says the same, for a bridge to post without calling back.
    const hook = await env.hooks.delivery(run_id, 2);
    expect(hook.last_approved_version).toBe(1);
    expect((hook.changes as Json).summary).toBe(
      'v2 adds 1 step, changes 1 and removes 1 since v1 was approved',
    );

    // The link's page (no API token): the same account first, then the plan; approved with a name.
    const link = await env.hooks.approvalLink(run_id, 2);
    const { page: linkPage, errors: linkErrors } = await open(`${link.pathname}${link.search}`);
    await linkPage.waitForSelector('.approval-changes');
    await expect(linkPage.locator('h1').innerText()).resolves.toBe('Approve version 2 of this plan?');
    await expect(linkPage.locator('.approval-changes [data-approval-summary]').innerText()).resolves.toBe(
      'v2 adds 1 step, changes 1 and removes 1 since v1 was approved',
    );
    const linkBox = (await linkPage.locator('.approval-changes').boundingBox())!;
    const table = (await linkPage.locator('section.approve-steps > table.plan-steps').boundingBox())!;
    expect(linkBox.y).toBeLessThan(table.y);
    // The link's table, as the run page's: what approving runs, then fetch set apart, collapsed.
    await linkPage.getByRole('region', { name: '2 steps to approve' }).waitFor();
    await expect(marked(linkPage, 'section.approve-steps > table.plan-steps')).resolves.toEqual([
      ['parse2', 'added'],
      ['report', 'changed'],
    ]);
    await expect(linkPage.locator('details.kept-steps summary').innerText()).resolves.toBe(
      '1 step already done — kept from before, not run again',
    );
    await expect(marked(linkPage, 'details.kept-steps table.plan-steps')).resolves.toEqual([
      ['fetch', 'done'],
    ]);
    await shot(linkPage, 'revision-changes-link');
    // Both pages on a phone, as read by assistive technology: no serious or critical axe finding, and
    // nothing wider than the screen (`bypassCSP`: axe goes in as an inline script; viewing spends nothing).
    const phone = await env.browser.newContext({ bypassCSP: true, viewport: { width: 390, height: 844 } });
    for (const [name, path] of [
      ['run-page', `/#/runs/${run_id}`],
      ['link', `${link.pathname}${link.search}`],
    ] as const) {
      const p = await phone.newPage();
      await p.goto(`${env.server.base}${path}`);
      await p.waitForSelector('.approval-changes');
      expect(await seriousViolations(p)).toEqual([]);
      expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await shot(p, `revision-changes-${name}-390`);
    }
    await phone.close();
    await linkPage.getByLabel(/^Your name/).fill('Grace Hopper');
    await linkPage.getByRole('button', { name: 'Approve' }).click();
    await linkPage.getByText('This link cannot be used again.').waitFor();
    await waitForStatus(run_id, 'completed');

    // Each decision carries the name given; the run page's history shows the last.
    const { events } = (await api('GET', `/v1/runs/${run_id}/events?limit=1000`)) as { events: Json[] };
    const named = events
      .filter((e) => e.event_type === 'ApprovalGranted')
      .map((e) => (e.payload as Json).approver);
    expect(named).toEqual(['Ada Lovelace', 'Grace Hopper']);
    // Decided on the link: the history says the name was typed there, not verified.
    await page
      .locator('.approval-note', {
        hasText: 'Plan v2 approved by “Grace Hopper” (typed on the approval link)',
      })
      .waitFor({ timeout: 10_000 });
    await expect(
      page.locator('.approval-note [data-name-source]').getAttribute('data-name-source'),
    ).resolves.toBe('link');
    expect(await page.locator('.approval-changes').count()).toBe(0);
    expect([...errors, ...linkErrors]).toEqual([]);
    await page.close();
    await linkPage.close();
  }, 90_000);

  it('says who edited which version: the first plan’s editor, not the revision’s decider', async () => {
    const flaky = { fail_times: 99, key: 'dashboard-revision-edit', permanent: true };
    const run_id = await revisingGoal(
      llm,
      'edit-then-revise: fetch, parse',
      [echo('fetch'), { id: 'parse', action: 'demo.flaky', parameters: flaky, dependencies: ['fetch'] }],
      [echo('fetch'), echo('parse2', ['fetch'])],
    );
    // Ada approves v1 with an edit (v2: fetch's parameters); parse fails, the planner writes v3.
    const edited = {
      goal: 'edit-then-revise: fetch, parse',
      steps: [
        echo('fetch', [], { id: 'fetch', edited: true }),
        { id: 'parse', action: 'demo.flaky', parameters: flaky, dependencies: ['fetch'] },
      ],
    };
    const modified = await api('POST', `/v1/runs/${run_id}/approval`, {
      decision: 'modify',
      plan: edited,
      approver: 'Ada Lovelace',
    });
    expect(modified.error).toBeUndefined();
    const { page, errors } = await open(`/#/runs/${run_id}`);
    await page.locator('.approval-changes').waitFor({ timeout: 20_000 });
    // Grace approves the revision: the note names her for v3, and the edit as `edgeplan show` does.
    await api('POST', `/v1/runs/${run_id}/approval`, { decision: 'approve', approver: 'Grace Hopper' });
    await waitForStatus(run_id, 'completed');
    const note = page.locator('.approval-note', { hasText: 'Grace Hopper' });
    await note.waitFor({ timeout: 10_000 });
    const edit = (await note.locator('[data-approval-edit]').innerText()).trim();
    // Ada's edit is hers, kept with v2 (PlanUpdated.approver), though Grace's decision is the last.
    expect(edit).toBe(
      '· edited into v2 when approved by “Ada Lovelace” (given without signing in): changed fetch',
    );
    await expect(note.innerText()).resolves.not.toMatch(/Grace Hopper.*edited into v2 by/);
    await shot(page, 'revision-edit-note');
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);
});
