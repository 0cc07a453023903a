/**
 * A plan written to attack the person reading it, in chromium against `wrangler dev`: markup and
 * script in every field a plan, its input and its tools' results carry run nothing (the page sets
 * `window.pwned` if they did); bidirectional overrides and zero-width characters are shown, not
 * obeyed, where an approver reads the plan (the approval link's page and the run page) and in a run's
 * error (which quotes what its tool was given), while Modify sends the plan as it was; and the
 * approval page cannot be framed (clickjacking an Approve).
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { dashboardSetup } from './dashboard-setup';

const { env, api, waitForStatus, open } = dashboardSetup('dashboard-hostile', { webhooks: true });

const XSS = (tag: string) =>
  `<img src=x onerror="window.pwned='${tag}'"><script>window.pwned='${tag}-script'</script>` +
  `<svg onload="window.pwned='${tag}-svg'"></svg>javascript:window.pwned='${tag}-js'`;
/** "pay alice", drawn right to left after U+202E: an approver reading it sees "ecila yap". */
const RLO = '\u202E';
const ZWSP = '\u200B';

async function awaitingApproval(plan: unknown, input?: unknown): Promise<string> {
  const r = (await api('POST', '/v1/runs', {
    plan,
    ...(input === undefined ? {} : { input }),
    config: { require_plan_approval: true, approval: { webhook_url: env.hooks.url } },
  })) as { run_id: string };
  await waitForStatus(r.run_id, 'awaiting_approval');
  return r.run_id;
}
const pwned = (page: Page) => page.evaluate(() => (window as { pwned?: unknown }).pwned ?? null);

describe('the dashboard reading a hostile plan', () => {
  it('runs no script from a plan, its input or a step’s output, on the run page, the runs list and the approval link', async () => {
    const runId = await awaitingApproval(
      {
        goal: XSS('goal'),
        success_criteria: XSS('criteria'),
        metadata: { note: XSS('meta') },
        steps: [
          {
            id: 'a',
            description: XSS('description'),
            action: 'demo.echo',
            parameters: { [XSS('key')]: XSS('value'), input: '{{ input.x }}' },
            expected_output: XSS('expected'),
          },
        ],
      },
      { x: XSS('input') },
    );
    const link = await env.hooks.approvalLink(runId);
    const approval = await open(`${link.pathname}${link.search}`);
    await approval.page.getByRole('button', { name: 'Approve' }).waitFor({ timeout: 15_000 });
    await expect.poll(() => approval.page.locator('p.goal').textContent()).toBe(XSS('goal'));
    expect(await pwned(approval.page)).toBeNull();
    await approval.page.getByRole('button', { name: 'Approve' }).click();
    await waitForStatus(runId, 'completed');
    await approval.page.close();

    const run = await open(`/#/runs/${runId}`);
    await run.page.locator('[data-step-id="a"][data-status="completed"]').click({ timeout: 15_000 });
    await run.page.getByRole('tab', { name: 'Events' }).click();
    await run.page
      .getByRole('button', { name: /in full/ })
      .first()
      .click({ timeout: 5_000 });
    expect(await pwned(run.page)).toBeNull();
    expect(run.errors).toEqual([]);
    await run.page.close();

    const list = await open('/#/');
    await list.page.getByText(XSS('goal')).first().waitFor({ timeout: 15_000 });
    expect(await pwned(list.page)).toBeNull();
    await list.page.close();
  }, 60_000);

  it('shows bidi overrides and zero-width characters where an approver reads the plan, and Modify sends them unchanged', async () => {
    const description = `pay ${RLO}ecila${ZWSP} 10 EUR`;
    const runId = await awaitingApproval({
      goal: `Refund ${RLO}moc.live`,
      steps: [{ id: 'pay', description, action: 'demo.echo', parameters: { to: `bob${RLO}@evil` } }],
    });
    const link = await env.hooks.approvalLink(runId);
    const { page, errors } = await open(`${link.pathname}${link.search}`);
    await page.getByRole('button', { name: 'Approve' }).waitFor({ timeout: 15_000 });
    expect(await page.locator('p.goal').textContent()).toBe('Refund [U+202E]moc.live');
    const row = page.locator('[data-plan-step="pay"]');
    expect(await row.locator('.description').textContent()).toBe('pay [U+202E]ecila[U+200B] 10 EUR');
    expect(await row.locator('.params code').textContent()).toBe('{"to":"bob\\u202e@evil"}');
    expect(await page.locator('body').innerText()).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B]/);

    // Modify's editor shows the same escapes; sent untouched, the plan keeps its characters.
    await page.getByRole('button', { name: 'Modify' }).click();
    const editor = page.getByRole('textbox', { name: /The plan to approve instead/ });
    expect(await editor.inputValue()).toContain('"bob\\u202e@evil"');
    await page.getByRole('button', { name: 'Approve modified plan' }).click({ timeout: 5_000 });
    const done = (await waitForStatus(runId, 'completed')) as {
      plan: { steps: { description: string; parameters: unknown }[] };
    };
    expect(done.plan.steps[0]).toMatchObject({ description, parameters: { to: `bob${RLO}@evil` } });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('writes out bidi overrides in a failed run’s error, which quotes what its tool was given', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: {
        goal: 'quoted error',
        steps: [{ id: 'load', action: 'demo.flaky', parameters: { fail_times: 5, key: `ok${RLO}gnorw` } }],
      },
      config: { retry_failed_steps: 0 },
    })) as { run_id: string };
    await waitForStatus(run_id, 'failed');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    const error = page.locator('p.error');
    await error.waitFor({ timeout: 15_000 });
    await expect(error.textContent()).resolves.toContain('"ok[U+202E]gnorw"');
    expect(await page.locator('main').innerText()).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('serves the approval link’s page unframeable, so an Approve cannot be clickjacked', async () => {
    const runId = await awaitingApproval({ steps: [{ id: 'a', action: 'demo.echo' }] });
    const link = await env.hooks.approvalLink(runId);
    const res = await fetch(link);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');

    // Framed by another origin's page, the frame stays empty: no Approve button to click through.
    const page = await env.browser.newPage();
    await page.route('http://attacker.test/', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<iframe src="${link.href}" width=800 height=600></iframe>`,
      }),
    );
    // `load` waits for the frame's navigation too: refused, it ends on chromium's error page.
    await page.goto('http://attacker.test/', { waitUntil: 'load' });
    const frames = page.frames().filter((f) => f !== page.mainFrame());
    expect(frames).toHaveLength(1);
    expect(frames[0]!.url()).not.toBe(link.href);
    expect((await api('GET', `/v1/runs/${runId}`)).status).toBe('awaiting_approval');
    await page.close();
  }, 60_000);
});
