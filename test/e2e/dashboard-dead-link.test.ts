/**
 * The approval link's page when its link dies while it is open — another approver decided through
 * the API, or the run was cancelled: a decision sent from it is refused `410 gone`, and the page says
 * what happened in place of its comment form and buttons, which could no longer work. In chromium
 * against `wrangler dev`; screenshots go to test-results/screenshots/.
 */
import { describe, expect, it } from 'vitest';
import { dashboardSetup } from './dashboard-setup';

const { env, api, waitForStatus, shot } = dashboardSetup('dashboard-dead-link', { webhooks: true });

const echo = (id: string) => ({ id, action: 'demo.echo', parameters: { id }, dependencies: [] });

/** A run awaiting approval, and its link's page open at 1280×800. */
async function openLink() {
  const { run_id: runId } = (await api('POST', '/v1/runs', {
    plan: { goal: 'Decide me once', steps: [echo('one')] },
    config: { require_plan_approval: true, approval: { webhook_url: env.hooks.url } },
  })) as { run_id: string };
  await waitForStatus(runId, 'awaiting_approval');
  const link = await env.hooks.approvalLink(runId);
  const page = await env.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.server.base}${link.pathname}${link.search}`);
  await page.getByRole('button', { name: 'Approve', exact: true }).waitFor({ timeout: 15_000 });
  return { runId, page, errors };
}

describe('the approval link’s page after its link died', () => {
  for (const [elsewhere, says] of [
    [{ path: 'approval', body: { decision: 'reject', approver: 'ana' } }, 'already rejected'],
    [{ path: 'cancel', body: {} }, 'ended before its plan was decided'],
  ] as const) {
    it(`shows what happened and no controls once a decision from it is refused 410 (${elsewhere.path} first)`, async () => {
      const { runId, page, errors } = await openLink();
      await api('POST', `/v1/runs/${runId}/${elsewhere.path}`, elsewhere.body);
      await page.getByRole('textbox', { name: /comment/i }).fill('looks fine to me');
      await page.getByRole('button', { name: 'Approve', exact: true }).click();
      const status = page.locator('p.gone[role="status"]');
      await status.waitFor({ timeout: 15_000 });
      await expect(status.innerText()).resolves.toContain(says);
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe(
        'This approval link no longer works',
      );
      await expect(page.getByText('link valid until').count()).resolves.toBe(0);
      // The plan kept below counts what the link asked to approve, not steps that still await.
      await expect(page.locator('[data-asked-before] #approve-steps-title').innerText()).resolves.toBe(
        '1 step it asked to approve',
      );
      // Nothing left that could only be refused again: no buttons, no comment, no error to dismiss.
      for (const name of ['Approve', 'Reject', 'Modify'])
        await expect(page.getByRole('button', { name, exact: true }).count()).resolves.toBe(0);
      await expect(page.getByRole('textbox').count()).resolves.toBe(0);
      await expect(page.getByRole('alert').count()).resolves.toBe(0);
      // Focus, left on the vanished button, goes to the account (read out on focus).
      await expect(status.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
      await shot(page, `dead-link-${elsewhere.path}`);
      expect(errors).toEqual([]);
      await page.close();
    }, 60_000);
  }

  it('closes Modify’s editor too when the edited plan is refused 410', async () => {
    const { runId, page, errors } = await openLink();
    await page.getByRole('button', { name: 'Modify' }).click();
    const editor = page.getByRole('region', { name: 'Modify the plan' });
    await editor.waitFor();
    await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' });
    await editor.getByRole('button', { name: 'Approve modified plan' }).click();
    await page.locator('p.gone[role="status"]').waitFor({ timeout: 15_000 });
    await expect(editor.count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Modify' }).count()).resolves.toBe(0);
    await shot(page, 'dead-link-modify');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
