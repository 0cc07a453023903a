/**
 * The run page's Modify editor holds an edit to the run's input as the API does: a whole
 * `{{ input.… }}` the step's tool cannot take is a finding as you type (the button stays disabled),
 * not "✔ Valid" followed by the API's refusal; and a refusal the API gives anyway is shown with its
 * finding, the edits kept. In chromium against `wrangler dev`; screenshots go to
 * test-results/screenshots/.
 */
import { describe, expect, it } from 'vitest';
import { dashboardSetup } from './dashboard-setup';

const { api, open, waitForStatus, shot } = dashboardSetup('dashboard-modify-input');

const plan = {
  goal: 'Hold the release',
  steps: [{ id: 'a', action: 'demo.echo', parameters: { id: 'a' }, dependencies: [] }],
};
/** `edgeplan run --input wait=5s --input ms=1`: `wait` a string, which demo.sleep's `ms` cannot take. */
const input = { wait: '5s', ms: 1 };
const withPause = (ms: string) => ({
  ...plan,
  steps: [...plan.steps, { id: 'pause', action: 'demo.sleep', parameters: { ms }, dependencies: ['a'] }],
});
const finding =
  'Step "pause": {{ input.wait }} is a string but parameters.ms of tool demo.sleep expects a number ' +
  "(as the run's input gives it)";

async function awaitingRun(): Promise<string> {
  const { run_id } = (await api('POST', '/v1/runs', {
    plan,
    input,
    config: { require_plan_approval: true },
  })) as { run_id: string };
  await waitForStatus(run_id, 'awaiting_approval');
  return run_id;
}

describe("Modify checks an edit against the run's input", () => {
  it('shows the mismatch as you type with the button disabled, then approves the fixed edit', async () => {
    const runId = await awaitingRun();
    const { page, errors } = await open(`/#/runs/${runId}`);
    await page.getByRole('button', { name: 'Modify' }).click();
    const editor = page.locator('.modify textarea');
    await editor.fill(JSON.stringify(withPause('{{ input.wait }}'), null, 2));
    await page.waitForSelector('.modify .findings li');
    await expect(page.locator('.modify .findings li').allInnerTexts()).resolves.toEqual([
      `bad_reference [pause]: ${finding}`,
    ]);
    await expect(page.locator('.modify .ok').count()).resolves.toBe(0);
    const approve = page.getByRole('button', { name: 'Approve modified plan' });
    await expect(approve.isDisabled()).resolves.toBe(true);
    await shot(page, 'modify-input-mismatch');
    await editor.fill(JSON.stringify(withPause('{{ input.ms }}'), null, 2));
    await page.waitForSelector('.modify .ok');
    await approve.click();
    const run = await waitForStatus(runId, 'completed');
    expect([run.plan_version, Object.keys(run.step_results as object).sort()]).toEqual([2, ['a', 'pause']]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows the API’s refusal with its finding when the editor could not check the input', async () => {
    const runId = await awaitingRun();
    // The editor's own check without the input (as on an approval link's page served for a run
    // object from before input_shape): it says "Valid", and the API's 422 is what the approver sees.
    const { page, errors } = await open(`/#/runs/${runId}`, async (p) => {
      await p.route('**/v1/plans/validate', async (route) => {
        const body = route.request().postDataJSON() as Record<string, unknown>;
        delete body.input;
        await route.continue({ postData: JSON.stringify(body) });
      });
    });
    await page.getByRole('button', { name: 'Modify' }).click();
    const editor = page.locator('.modify textarea');
    await editor.fill(JSON.stringify(withPause('{{ input.wait }}'), null, 2));
    await page.locator('section.modify button.primary:not([disabled])').waitFor({ timeout: 10_000 });
    await page.getByRole('button', { name: 'Approve modified plan' }).click();
    const refusal = page.locator('.modify .refusal');
    await refusal.waitFor({ timeout: 10_000 });
    await expect(refusal.locator('p.error').innerText()).resolves.toBe(
      'Not sent — invalid_plan: one finding',
    );
    await expect(refusal.locator('li').allInnerTexts()).resolves.toEqual([
      `bad_reference [pause]: ${finding}`,
    ]);
    await expect(editor.inputValue()).resolves.toContain('{{ input.wait }}');
    await expect(page.locator('[data-run-status]').getAttribute('data-run-status')).resolves.toBe(
      'awaiting_approval',
    );
    await shot(page, 'modify-input-refused');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
