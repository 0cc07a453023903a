/**
 * Two approvers with the run open in two tabs, pressing Approve and Reject at the same moment, in
 * chromium against `wrangler dev`: one decision is taken and recorded once; both tabs come to show the
 * run as that decision left it without a reload, and the tab whose decision was not taken says which
 * one was taken instead.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { dashboardSetup } from './dashboard-setup';

const { env, api, waitForStatus } = dashboardSetup('dashboard-races');

/** A tab on the run, once it has read the run's past and offers Approve. */
async function tab(runId: string): Promise<{ page: Page; errors: string[] }> {
  const page = await env.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.server.base}/#/runs/${runId}`);
  await page.getByRole('button', { name: 'Approve' }).waitFor({ timeout: 15_000 });
  await page.waitForSelector('main.run-page[aria-busy="false"]', { timeout: 15_000 });
  return { page, errors };
}

/**
 * Presses the action button named `name` in the page at once (no waiting for it, as a person's click);
 * false when the button is gone already — the other tab's decision reached this one first (on a busy
 * machine one page's press can come tens of milliseconds after the other's).
 */
const press = (page: Page, name: string) =>
  page.evaluate((n) => {
    const button = [...document.querySelectorAll<HTMLButtonElement>('.actions button')].find(
      (b) => b.textContent?.trim() === n,
    );
    button?.click();
    return button !== undefined;
  }, name);

describe('two tabs deciding one run at the same moment', () => {
  it('take one decision; the other tab shows its outcome and says it was decided', async () => {
    for (const presses of [
      ['Approve', 'Reject'],
      ['Reject', 'Approve'],
    ] as const) {
      const plan = { goal: 'two tabs', steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] };
      const { run_id: runId } = (await api('POST', '/v1/runs', {
        plan,
        config: { require_plan_approval: true },
      })) as {
        run_id: string;
      };
      await waitForStatus(runId, 'awaiting_approval');
      const tabs = [await tab(runId), await tab(runId)];
      const pressed = await Promise.all(tabs.map((t, i) => press(t.page, presses[i]!)));
      expect(pressed.some(Boolean)).toBe(true);
      // A press only sends the decision: it is recorded once the server has it (on a loaded machine,
      // after the events were read here — which found none).
      const decisions = async () =>
        ((await api('GET', `/v1/runs/${runId}/events`)) as { events: { event_type: string }[] }).events
          .filter((e) => ['ApprovalGranted', 'ApprovalRejected'].includes(e.event_type))
          .map((e) => e.event_type);
      await expect.poll(async () => (await decisions()).length, { timeout: 15_000 }).toBeGreaterThan(0);
      const approved = (await decisions())[0] === 'ApprovalGranted';
      const final = approved ? 'completed' : 'cancelled';
      await waitForStatus(runId, final);
      const winner = presses.indexOf(approved ? 'Approve' : 'Reject');
      for (const [i, t] of tabs.entries()) {
        // Both tabs come to the run's end as it is, through its events or the read after a refusal.
        await t.page.waitForSelector(`[data-run-status="${final}"]`, { timeout: 10_000 });
        await expect(t.page.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);
        // The tab that pressed and lost says what was decided instead; the winner's says nothing went
        // wrong (a tab whose button was gone before its press shows the outcome, and pressed nothing).
        const lost = i !== winner && pressed[i] === true;
        const said = `already ${approved ? 'approved' : 'rejected'}`;
        // The other tab's decision can reach this one over its socket before its own refusal arrives:
        // the end is drawn first, the refusal after it. Waited for; the assertion below says if it never came.
        if (lost)
          await t.page
            .getByRole('alert')
            .filter({ hasText: said })
            .first()
            .waitFor({ timeout: 10_000 })
            .catch(() => undefined);
        const alerts = (await t.page.getByRole('alert').allInnerTexts()).join(' ');
        expect(!lost || alerts.includes(said)).toBe(true);
        expect(i !== winner || alerts.trim() === '').toBe(true);
        expect(t.errors).toEqual([]);
        await t.page.close();
      }
      // Both tabs' decisions answered (the loser's refusal shown): one of them was recorded.
      await expect(decisions()).resolves.toHaveLength(1);
    }
  }, 90_000);
});
