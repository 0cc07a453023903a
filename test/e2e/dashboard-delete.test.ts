/**
 * Deleting a run from the dashboard, in chromium against `wrangler dev`: an ended run's page offers
 * Delete, which asks first (Keep it, or Escape, deletes nothing); confirmed, the run is deleted and the
 * page is back on the runs list, which no longer lists it. A run still going offers no Delete. A run
 * deleted elsewhere while its page is open: Delete there goes back to the list (what was asked is
 * done), and any other action says the run was deleted — not "not_found", nor "mistyped".
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { dashboardSetup } from './dashboard-setup';

const { env, api, waitForStatus, open, shot } = dashboardSetup('dashboard-delete');

const startRun = async (plan: unknown, config: unknown = {}) =>
  ((await api('POST', '/v1/runs', { plan, config })) as { run_id: string }).run_id;

describe('the dashboard’s Delete', () => {
  it('asks first, then deletes an ended run and goes back to the runs list', async () => {
    const runId = await startRun({
      goal: 'to be deleted',
      steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }],
    });
    const kept = await startRun({
      goal: 'kept',
      steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 2 } }],
    });
    await waitForStatus(runId, 'completed');
    await waitForStatus(kept, 'completed');
    const { page, errors } = await open(`/#/runs/${runId}`);
    const del = page.getByRole('button', { name: 'Delete', exact: true });
    await del.click({ timeout: 15_000 });
    const confirm = page.getByRole('group', { name: 'Delete this run?' });
    await confirm.waitFor();
    await shot(page, 'delete-confirm');
    // The choice that deletes nothing has focus; Keep it (and Escape) close the question, nothing sent.
    await expect(
      confirm.getByRole('button', { name: 'Keep it' }).evaluate((b) => b === document.activeElement),
    ).resolves.toBe(true);
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    await expect(del.evaluate((b) => b === document.activeElement)).resolves.toBe(true);
    expect((await api('GET', `/v1/runs/${runId}`)).status).toBe('completed');
    await del.click();
    await confirm.getByRole('button', { name: 'Keep it' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect((await api('GET', `/v1/runs/${runId}`)).status).toBe('completed');
    // Confirmed: deleted, and back on the list, which does not list it.
    await del.click();
    await confirm.getByRole('button', { name: 'Delete run' }).click();
    await page.waitForFunction(() => location.hash === '#/', undefined, { timeout: 15_000 });
    await page.locator(`[data-run-id="${kept}"]`).waitFor({ timeout: 15_000 });
    await expect(page.locator(`[data-run-id="${runId}"]`).count()).resolves.toBe(0);
    expect(((await api('GET', `/v1/runs/${runId}`)) as { error: { code: string } }).error.code).toBe(
      'not_found',
    );
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('offers no Delete on a run still going', async () => {
    const runId = await startRun(
      { steps: [{ id: 's', action: 'demo.sleep', parameters: { ms: 20_000 } }] },
      { execution_mode: 'parallel' },
    );
    await waitForStatus(runId, 'running');
    const { page } = await open(`/#/runs/${runId}`);
    await page.getByRole('button', { name: 'Cancel', exact: true }).waitFor({ timeout: 15_000 });
    await expect(page.getByRole('button', { name: 'Delete', exact: true }).count()).resolves.toBe(0);
    await api('POST', `/v1/runs/${runId}/cancel`, {});
    await page.getByRole('button', { name: 'Delete', exact: true }).waitFor({ timeout: 15_000 });
    await page.close();
  }, 60_000);

  it('a run deleted elsewhere while its page is open: Delete goes back to the list, Retry says it was deleted', async () => {
    const failing = (key: string) => ({
      goal: 'deleted elsewhere',
      steps: [{ id: 'a', action: 'demo.flaky', parameters: { fail_times: 3, key } }],
    });
    const [first, second] = [
      await startRun(failing('deleted-1'), { retry_failed_steps: 0 }),
      await startRun(failing('deleted-2'), { retry_failed_steps: 0 }),
    ];
    await waitForStatus(first, 'failed');
    await waitForStatus(second, 'failed');
    const remove = (id: string) => fetch(`${env.server.base}/v1/runs/${id}`, { method: 'DELETE' });

    // The page reads the run's past and follows it, and an ending event makes it read the run again —
    // which, after the DELETE below, finds it gone and shows "Run deleted" by itself (raced against the
    // click on a busy machine). Here the click must be what finds the run gone, so the run is deleted
    // once the page has read it all: an ended run's page reads its past in pages, then its watch asks
    // the run's status once and ends (no socket); a watch on a socket closes it after the last event.
    let readAll!: Promise<void>;
    const reading = (page: Page) => {
      readAll = new Promise<void>((resolve) => {
        page.on('websocket', (ws) => ws.on('close', () => resolve()));
        page.on('response', (r) => {
          if (/\/v1\/runs\/[^/?]+\/status/.test(r.url())) resolve();
        });
      }).then(() => page.waitForLoadState('networkidle'));
      return Promise.resolve();
    };
    const one = await open(`/#/runs/${first}`, reading);
    const del = one.page.getByRole('button', { name: 'Delete', exact: true });
    await del.waitFor({ timeout: 15_000 });
    await readAll;
    expect((await remove(first)).status).toBe(200);
    await del.click();
    await one.page.getByRole('button', { name: 'Delete run' }).click();
    await one.page.waitForFunction(() => location.hash === '#/', undefined, { timeout: 15_000 });
    // The list drawn (the other run in it), not only the address changed: an error shown there is seen.
    await one.page.locator(`[data-run-id="${second}"]`).waitFor({ timeout: 15_000 });
    await expect(one.page.getByText('not_found').count()).resolves.toBe(0);
    expect(one.errors).toEqual([]);
    await one.page.close();

    const two = await open(`/#/runs/${second}`, reading);
    const retry = two.page.getByRole('button', { name: 'Retry', exact: true });
    await retry.waitFor({ timeout: 15_000 });
    await readAll;
    expect((await remove(second)).status).toBe(200);
    await retry.click();
    await two.page.getByRole('heading', { name: 'Run deleted' }).waitFor({ timeout: 15_000 });
    await expect(two.page.getByRole('alert').innerText()).resolves.toContain(
      'This run was deleted after this page opened it',
    );
    await expect(two.page.locator('code.missing-id').textContent()).resolves.toBe(second);
    await shot(two.page, 'run-deleted-elsewhere');
    // A mistyped id still reads as one.
    await two.page.goto(`${env.server.base}/#/runs/run_0123456789abcdef0123456789abcdef`);
    await two.page.getByRole('heading', { name: 'No such run' }).waitFor();
    expect(two.errors).toEqual([]);
    await two.page.close();
  }, 60_000);
});
