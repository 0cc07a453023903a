/**
 * The dashboard following runs an LLM plans, in chromium against `wrangler dev` pointed at a scripted
 * OpenAI-compatible endpoint on loopback: a plan streaming in says so until it is whole, and the
 * planning tab tells the planning requests apart, says why it lists nothing, and fits a phone.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardSetup } from './dashboard-setup';
import { ndjson, plannerVars, startScriptedLlm } from './scripted-llm-server';
import { describedEcho as echo } from '../fixtures/echo-steps';

let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
const root = new URL('../..', import.meta.url).pathname;
// The scripted endpoint first: the dev server is pointed at it.
beforeAll(async () => {
  llm = await startScriptedLlm();
});
afterAll(async () => {
  await llm?.close();
});
const { env, api, waitForStatus, open, shot, revisingGoal } = dashboardSetup('dashboard-llm-e2e', {
  webhooks: true,
  extraArgs: () => plannerVars(llm.url),
});

describe('the dashboard following LLM-planned runs', () => {
  it('says a plan is still streaming in while its first steps run, and lists the attempts once it is whole', async () => {
    // The rest of the plan comes once the test has looked at the page (however long it took to open).
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    llm.script('stream-slowly', [
      { pieces: ndjson([echo('gather'), echo('sort', ['gather']), echo('report', ['sort'])]), held },
    ]);
    const { run_id } = (await api('POST', '/v1/runs', {
      goal: 'stream-slowly: gather, sort, report',
      config: { execution_mode: 'sequential' },
    })) as { run_id: string };
    const { page, errors } = await open(`/#/runs/${run_id}/planning`);
    // The first step ran while the model still writes: not "1/1 steps completed" as if done.
    await page.waitForSelector('.step-counts .streaming', { timeout: 15_000 });
    await expect(page.locator('.step-counts').innerText()).resolves.toMatch(/still streaming in/);
    // No plan version yet, and none made up ("v–" read as a glitch).
    await expect(page.locator('.step-counts').innerText()).resolves.toMatch(
      /^1\/1 steps completed · the plan is still streaming in/,
    );
    // The planning tab does not claim that no LLM planned this run (once it has read the attempts).
    await page.getByText('The planner is at work').waitFor({ timeout: 10_000 });
    await expect(page.locator('.planning').innerText()).resolves.toMatch(
      /None yet: the plan is still streaming in[\s\S]*planner is at work/,
    );
    await shot(page, 'llm-streaming-planning');
    release();
    await waitForStatus(run_id, 'completed');
    // The tab left open reads the attempts again once the planning ended.
    await page.waitForSelector('table.attempts-trace tbody tr[data-outcome="ok"]', { timeout: 10_000 });
    // Once the page has the run's last events: the API said completed before the socket brought them.
    await page.locator('.step-counts', { hasText: /3\/3 steps completed · v1/ }).waitFor({ timeout: 10_000 });
    expect(await page.locator('.step-counts .streaming').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('a planning that failed, on a phone: no empty table, its attempts numbered, nothing wider than the screen', async () => {
    llm.script('never-plans', ['no json here', 'still nothing', 'nothing again']);
    const { run_id } = (await api('POST', '/v1/runs', { goal: 'never-plans: my holiday' })) as {
      run_id: string;
    };
    await waitForStatus(run_id, 'failed');
    const page = await env.browser.newPage({ viewport: { width: 390, height: 844 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${env.server.base}/#/runs/${run_id}/planning`);
    await page.waitForSelector('table.attempts-trace tbody tr');
    // Once the run's events are read (until then it may still be planning, as far as the page knows).
    await page.getByText('None: this run never had a plan.').waitFor({ timeout: 10_000 });
    // One planning request: the streamed attempt, then the plan asked for whole and its repair.
    const rows = await page
      .locator('table.attempts-trace tbody tr')
      .evaluateAll((r) => r.map((x) => `${x.getAttribute('data-request')}.${x.children[1]!.textContent}`));
    expect(rows).toEqual(['1.1', '1.2', '1.3']);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // Every tab fits: the last one was cut to "P" behind a scroll.
    const tabs = page.locator('nav.tabs');
    expect(await tabs.evaluate((n) => n.scrollWidth <= n.clientWidth)).toBe(true);
    await shot(page, 'llm-planning-failed-390');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('a planning that failed whose attempts are not on record does not say no LLM planned it', async () => {
    llm.script('lost-trace', ['no json here', 'still nothing', 'nothing again']);
    const { run_id } = (await api('POST', '/v1/runs', { goal: 'lost-trace: my holiday' })) as {
      run_id: string;
    };
    await waitForStatus(run_id, 'failed');
    // As a release before D1 migration 0004 left it: the attempts filed under no run (here: gone).
    const wrangler = join(root, 'node_modules/.bin/wrangler');
    const sql = `DELETE FROM planning_attempts WHERE run_id = '${run_id}'`;
    const args = ['d1', 'execute', 'DB', '--local', '--persist-to', env.server.persist, '--command', sql];
    expect(spawnSync(wrangler, args, { cwd: root, stdio: 'ignore' }).status).toBe(0);
    const { page, errors } = await open(`/#/runs/${run_id}/planning`);
    await page.getByText('None: this run never had a plan.').waitFor({ timeout: 10_000 });
    await page.getByText('are not on record').waitFor({ timeout: 10_000 });
    expect(await page.getByText('No LLM planned this run').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('the approval link shows each step’s description: what the model meant it to do', async () => {
    const step = (id: string, description: string, deps: string[] = []) => ({
      id,
      description,
      action: 'demo.echo',
      parameters: { id },
      dependencies: deps,
    });
    llm.script('needs-approval', [
      JSON.stringify({
        steps: [
          step('search', 'Search the archive for the three newest reports'),
          step('answer', 'Summarise the reports in two sentences', ['search']),
        ],
      }),
    ]);
    const { run_id } = (await api('POST', '/v1/runs', {
      goal: 'needs-approval: summarise the newest reports',
      config: { require_plan_approval: true, approval: { webhook_url: env.hooks.url } },
    })) as { run_id: string };
    await waitForStatus(run_id, 'awaiting_approval');
    const link = await env.hooks.approvalLink(run_id);
    const { page, errors } = await open(`${link.pathname}${link.search}`);
    await page.waitForSelector('table.plan-steps tbody tr');
    expect(await page.locator('table.plan-steps tbody tr').allInnerTexts()).toEqual([
      expect.stringContaining('Search the archive for the three newest reports'),
      expect.stringContaining('Summarise the reports in two sentences'),
    ]);
    await shot(page, 'llm-approval-link');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('a revision waits for its own approval (approval.revisions: "ask"), approved from its link', async () => {
    const flaky = { fail_times: 99, key: 'dashboard-revision-approval', permanent: true };
    const run_id = await revisingGoal(
      llm,
      'revise-with-approval: fetch and parse',
      [echo('fetch'), { id: 'parse', action: 'demo.flaky', parameters: flaky, dependencies: ['fetch'] }],
      [echo('fetch'), echo('parse2', ['fetch'])],
    );
    await api('POST', `/v1/runs/${run_id}/approval`, { decision: 'approve', comment: 'v1 ok' });
    // parse fails; the planner writes v2, whose own webhook carries its own link.
    const link = await env.hooks.approvalLink(run_id, 2);
    const { page: runPage, errors: runErrors } = await open(`/#/runs/${run_id}`);
    await runPage.waitForSelector('.approval-note');
    // (The comment's quotation marks are the <q> element's own, not its text.)
    await expect(runPage.locator('.approval-note').innerText()).resolves.toBe(
      'Plan v1 approved through the API without a token: v1 ok',
    );
    await runPage.close();
    const { page, errors } = await open(`${link.pathname}${link.search}`);
    await page.waitForSelector('table.plan-steps tbody tr');
    // The link shows the revised plan: v2's step to approve, and fetch, done under v1, set apart.
    expect(await page.locator('section.approve-steps > table.plan-steps tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^parse2\b/),
    ]);
    await expect(page.locator('#approve-steps-title').innerText()).resolves.toBe('1 step to approve');
    await expect(
      page
        .locator('details.kept-steps table.plan-steps tbody tr')
        .evaluateAll((rows) =>
          rows.map((r) => [r.getAttribute('data-plan-step'), r.getAttribute('data-kept')]),
        ),
    ).resolves.toEqual([['fetch', 'done']]);
    await page.getByRole('button', { name: 'Approve' }).click();
    const run = await waitForStatus(run_id, 'completed');
    expect(Object.keys(run.step_results as object).sort()).toEqual(['fetch', 'parse2']);
    const { page: donePage, errors: doneErrors } = await open(`/#/runs/${run_id}`);
    await donePage.waitForSelector('.approval-note');
    // Approved on the link with no name typed: said so, not "by the approver".
    await expect(donePage.locator('.approval-note').innerText()).resolves.toBe(
      'Plan v2 approved from the approval link',
    );
    await shot(donePage, 'llm-revision-approved');
    expect([...runErrors, ...errors, ...doneErrors]).toEqual([]);
    await page.close();
    await donePage.close();
  }, 60_000);

  it('rolling back a run whose revision failed says the run stays failed until Retry', async () => {
    const flaky = { fail_times: 50, key: 'dashboard-rollback' };
    llm.script('revise-then-fail', [
      {
        pieces: ndjson([
          echo('fetch'),
          { id: 'parse', action: 'demo.flaky', parameters: flaky, dependencies: ['fetch'] },
        ]),
      },
      JSON.stringify({
        steps: [
          echo('fetch'),
          { id: 'parse2', action: 'demo.flaky', parameters: flaky, dependencies: ['fetch'] },
        ],
      }),
      'no plan this time',
      'nor now',
    ]);
    const { run_id } = (await api('POST', '/v1/runs', {
      goal: 'revise-then-fail: fetch and parse',
      config: { execution_mode: 'sequential', max_revisions: 2 },
    })) as { run_id: string };
    await waitForStatus(run_id, 'failed');
    const { page, errors } = await open(`/#/runs/${run_id}/versions`);
    await page.getByRole('button', { name: 'Roll back to v1' }).click();
    // The run page may say more as a status (a notice of its outcome): the one the rollback shows.
    await expect(page.getByRole('status').filter({ hasText: 'Rolled back' }).innerText()).resolves.toBe(
      'Rolled back to v1. The run stays failed: Retry runs what this version leaves open.',
    );
    await page.waitForSelector('.versions tr.current >> text=v3');
    await shot(page, 'llm-rollback-failed-run');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
