/**
 * The dashboard as a first-time approver meets it, in chromium against `wrangler dev`: what the page
 * shows after it read a run again is the run as read (its graph too, not the colours it last drew);
 * Escape closes what an action opened (Modify's editor, Delete's question), focus back on the button
 * that opened it. Screenshots go to test-results/screenshots/.
 */
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { holdableWebSockets, type Json } from './dashboard-helpers';
import { dashboardSetup } from './dashboard-setup';

const { env, api, waitForStatus, shot } = dashboardSetup('dashboard-approver', { webhooks: true });

const echo = (id: string, deps: string[] = []) => ({
  id,
  action: 'demo.echo',
  parameters: { id },
  dependencies: deps,
});
async function startRun(plan: unknown, config: Json = {}): Promise<string> {
  return ((await api('POST', '/v1/runs', { plan, config })) as { run_id: string }).run_id;
}
/** A page at 1280×800, with `init` run in it before its scripts. */
async function openPage(path: string, init?: () => void) {
  const page = await env.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  if (init) await page.addInitScript(init);
  await page.goto(`${env.server.base}${path}`);
  return { page, errors };
}
/** Every graph node's status, by step id. */
const nodeStatuses = (page: Page) =>
  page.$$eval('svg.dag [data-step-id]', (nodes) =>
    Object.fromEntries(nodes.map((n) => [n.getAttribute('data-step-id'), n.getAttribute('data-status')])),
  );
/** Whether the element `locator` finds has focus. */
const hasFocus = (l: Locator) => l.evaluate((el) => el === document.activeElement);
/** A run of `plan` awaiting approval, its approval link sent to the test's webhook receiver. */
async function awaitingApproval(plan: unknown): Promise<string> {
  const runId = await startRun(plan, {
    require_plan_approval: true,
    approval: { webhook_url: env.hooks.url },
  });
  await waitForStatus(runId, 'awaiting_approval');
  return runId;
}
/**
 * Modify's editor (opened from `modify`) closes on Escape, pressed in it, on Modify, or with focus
 * nowhere, and on "Discard edits": the edits dropped, focus back on Modify. Escape pressed in another
 * field (`elsewhere`) is that field's, and leaves the editor open.
 */
async function escapesModify(page: Page, modify: Locator, elsewhere: Locator) {
  const editor = page.getByRole('region', { name: 'Modify the plan' });
  const text = editor.getByRole('textbox', { name: /The plan to approve instead/ });
  await modify.click();
  await text.fill('{"goal": "edited", "steps": []}');
  await page.keyboard.press('Escape');
  await editor.waitFor({ state: 'detached' });
  await expect(hasFocus(modify)).resolves.toBe(true);
  await expect(modify.getAttribute('aria-expanded')).resolves.toBe('false');
  // Escape cancelled the edit: opened again, the editor shows the plan as it is.
  await modify.click();
  await expect(text.inputValue()).resolves.not.toMatch(/edited/);
  // On Modify itself (focus stays there after the click), and with focus nowhere.
  await expect(hasFocus(modify)).resolves.toBe(true);
  await page.keyboard.press('Escape');
  await editor.waitFor({ state: 'detached' });
  await modify.click();
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('Escape');
  await editor.waitFor({ state: 'detached' });
  await expect(hasFocus(modify)).resolves.toBe(true);
  // Not from a field of its own.
  await modify.click();
  await elsewhere.focus();
  await page.keyboard.press('Escape');
  await expect(editor.count()).resolves.toBe(1);
  // With the mouse.
  await editor.getByRole('button', { name: 'Discard edits' }).click();
  await editor.waitFor({ state: 'detached' });
  await expect(hasFocus(modify)).resolves.toBe(true);
}

describe('the dashboard for a first-time approver', () => {
  it('draws the graph as the run read again has it after a refused Approve, its events held back', async () => {
    // Approved elsewhere, the run does `one` and waits at `ask` for an answer: a state that stays.
    const runId = await startRun(
      {
        goal: 'Redraw me',
        steps: [
          echo('one'),
          { id: 'ask', action: 'human.input', parameters: { prompt: 'Go on?' }, dependencies: ['one'] },
          echo('last', ['ask']),
        ],
      },
      { require_plan_approval: true },
    );
    await waitForStatus(runId, 'awaiting_approval');
    const { page, errors } = await openPage(`/#/runs/${runId}`, holdableWebSockets);
    const approve = page.getByRole('button', { name: 'Approve' });
    await approve.waitFor({ timeout: 15_000 });
    await expect(nodeStatuses(page)).resolves.toEqual({ one: 'pending', ask: 'pending', last: 'pending' });
    await page.evaluate(() => (window as unknown as { holdSockets: () => void }).holdSockets());
    await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' });
    const run = (await waitForStatus(runId, 'awaiting_input')) as {
      steps: Record<string, { status: string }>;
    };
    await approve.click();
    await page.getByRole('alert').waitFor({ timeout: 10_000 });
    await page.waitForSelector('[data-run-status="awaiting_input"]', { timeout: 10_000 });
    // No event can come (they are held): the graph is drawn from the run read again, at once.
    await expect(nodeStatuses(page)).resolves.toEqual({
      one: run.steps.one?.status,
      ask: run.steps.ask?.status,
      last: 'pending',
    });
    await expect(nodeStatuses(page).then((s) => s.one)).resolves.toBe('completed');
    await expect(page.locator('.step-counts').innerText()).resolves.toMatch(/^1\/3 steps completed/);
    // A node opened shows the step as read, too: done, not "not run yet" (its attempts' events are held).
    await page.locator('svg.dag [data-step-id="one"]').click();
    const panel = page.getByRole('complementary', { name: 'Step one' });
    await expect(panel.locator('h2 .badge').innerText()).resolves.toBe('completed');
    await expect(panel.innerText()).resolves.not.toMatch(/not run yet/i);
    await expect(panel.innerText()).resolves.toMatch(/still being read/);
    await shot(page, 'approver-reread-graph');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('closes Modify’s editor on Escape, edits dropped and focus back on Modify, on the run page and the approval link', async () => {
    const runId = await awaitingApproval({ goal: 'Escape me', steps: [echo('one'), echo('two', ['one'])] });
    const { page, errors } = await openPage(`/#/runs/${runId}`);
    const modify = page.getByRole('button', { name: 'Modify' });
    await modify.waitFor({ timeout: 15_000 });
    await escapesModify(page, modify, page.getByLabel('API token'));
    // Nothing was decided.
    expect((await api('GET', `/v1/runs/${runId}`)).status).toBe('awaiting_approval');
    expect(errors).toEqual([]);
    await page.close();

    const link = await env.hooks.approvalLink(runId);
    const approval = await openPage(`${link.pathname}${link.search}`);
    const linkModify = approval.page.getByRole('button', { name: 'Modify' });
    await linkModify.waitFor({ timeout: 15_000 });
    await escapesModify(approval.page, linkModify, approval.page.getByRole('textbox', { name: /comment/i }));
    expect((await api('GET', `/v1/runs/${runId}`)).status).toBe('awaiting_approval');
    expect(approval.errors).toEqual([]);
    await approval.page.close();
  }, 60_000);

  it('closes Delete’s question on Escape wherever focus is left on the page, nothing deleted', async () => {
    const runId = await startRun({ goal: 'Keep me', steps: [echo('one')] });
    await waitForStatus(runId, 'completed');
    const { page, errors } = await openPage(`/#/runs/${runId}`);
    const del = page.getByRole('button', { name: 'Delete', exact: true });
    const question = page.getByRole('group', { name: 'Delete this run?' });
    await del.click({ timeout: 15_000 });
    await question.waitFor();
    // A click on the page's background (focus nowhere), then Escape.
    await page.mouse.click(640, 760);
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'detached' });
    await expect(hasFocus(del)).resolves.toBe(true);
    // On Delete itself (focused from the keyboard, the question opened with Enter, focus moved back).
    await del.press('Enter');
    await question.waitFor();
    await del.focus();
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'detached' });
    expect((await api('GET', `/v1/runs/${runId}`)).status).toBe('completed');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
