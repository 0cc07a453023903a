/**
 * Deleting a run from the dashboard, in chromium against `wrangler dev`: an ended run's page offers
 * Delete, which asks first (Keep it, or Escape, deletes nothing); confirmed, the run is deleted and the
 * page is back on the runs list, which no longer lists it. A run still going offers no Delete.
 */
import { describe, expect, it } from 'vitest';
import { dashboardSetup } from './dashboard-setup';

const { api, waitForStatus, open, shot } = dashboardSetup('dashboard-delete');

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
});
