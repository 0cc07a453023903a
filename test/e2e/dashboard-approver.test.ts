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
import { echo } from '../fixtures/echo-steps';

const { env, api, waitForStatus, shot } = dashboardSetup('dashboard-approver', { webhooks: true });

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
async function awaitingApproval(plan: unknown, config: Json = {}): Promise<string> {
  const runId = await startRun(plan, {
    ...config,
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
    // Held only once the page has read the run's past: a read still under way would bring the approval
    // in over HTTP (under load it did, and Approve went away before it was clicked).
    await page.waitForSelector('main.run-page[aria-busy="false"]', { timeout: 15_000 });
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

/**
 * Runs in the page before its scripts: counts the frames drawn with the graph but without its tools
 * ("Fit to width") in `window.framesWithoutTools` — each one a jump when the tools then push it down.
 */
function recordGraphFrames() {
  const seen = { framesWithoutTools: 0 };
  Object.assign(window, seen);
  const frame = () => {
    if (document.querySelector('svg.dag') && !document.querySelector('.dag-tools'))
      (window as unknown as typeof seen).framesWithoutTools++;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

describe('the dashboard for a first-time approver, reading a plan', () => {
  it('draws a 30-step plan in plan order, offers "Fit to width" at 1280×800, and says no description twice', async () => {
    const region = (i: number) => String(i).padStart(2, '0');
    const steps = [echo('fetch_customer_accounts')];
    for (let i = 1; i <= 12; i++)
      steps.push(echo(`enrich_region_${region(i)}_with_billing_history`, ['fetch_customer_accounts']));
    for (let i = 1; i <= 12; i++)
      steps.push(echo(`score_region_${region(i)}`, [`enrich_region_${region(i)}_with_billing_history`]));
    steps.push(
      echo(
        'merge_scores',
        steps.slice(13).map((s) => s.id),
      ),
    );
    for (const id of ['write_report', 'notify_account_managers', 'archive', 'done'])
      steps.push(echo(id, [steps.at(-1)!.id]));
    expect(steps).toHaveLength(30);
    const runId = await awaitingApproval({ goal: 'Thirty steps to approve', steps }, { max_steps: 30 });
    const { page, errors } = await openPage(`/#/runs/${runId}`, recordGraphFrames);
    await page.locator('svg.dag [data-step-id="done"]').waitFor({ timeout: 15_000 });
    // Region 1 on top, region 12 at the bottom, as planned (dagre had stacked them the other way).
    const tops = await page.$$eval('svg.dag [data-step-id]', (nodes) =>
      nodes.map((n) => [n.getAttribute('data-step-id'), n.getBoundingClientRect().top] as const),
    );
    const top = new Map(tops);
    for (const col of ['enrich_region_', 'score_region_']) {
      const ys = tops.filter(([id]) => id?.startsWith(col)).map(([, y]) => y);
      expect(ys).toHaveLength(12);
      expect(ys).toEqual([...ys].sort((a, b) => a - b));
    }
    expect(top.get('enrich_region_01_with_billing_history')!).toBeLessThan(
      top.get('enrich_region_12_with_billing_history')!,
    );
    // A cut id is there whole on hover (the node's tooltip); a short one needs none.
    await expect(
      page.locator('svg.dag [data-step-id="enrich_region_01_with_billing_history"] > title').textContent(),
    ).resolves.toBe('enrich_region_01_with_billing_history · demo.echo');
    await expect(page.locator('svg.dag [data-step-id="score_region_01"] > title').count()).resolves.toBe(0);
    // A long id's node, focused from the keyboard: its ring is drawn round its box, not round the whole
    // of its (cut) text, which ran over the next step's box.
    await page.locator('svg.dag [data-step-id="fetch_customer_accounts"]').focus();
    await page.keyboard.press('Tab');
    const focusedNode = page.locator('svg.dag [data-step-id="enrich_region_01_with_billing_history"]');
    await expect(hasFocus(focusedNode)).resolves.toBe(true);
    const ring = await focusedNode.evaluate((g) => ({
      group: getComputedStyle(g).outlineStyle,
      box: getComputedStyle(g.querySelector(':scope > rect')!).outlineStyle,
      boxWidth: getComputedStyle(g.querySelector(':scope > rect')!).outlineWidth,
    }));
    expect(ring).toEqual({ group: 'none', box: 'solid', boxWidth: '2px' });
    await shot(page, 'approver-30-steps-focus');
    // Wider than its box on a desktop: "Fit to width" shows the whole width, the last step in view.
    const box = page.locator('.dag-scroll');
    const last = page.locator('svg.dag [data-step-id="done"]');
    const right = async () => (await last.boundingBox())!.x + (await last.boundingBox())!.width;
    const edge = async () => (await box.boundingBox())!.x + (await box.boundingBox())!.width;
    expect(await right()).toBeGreaterThan(await edge());
    // Offered from the first frame the graph is drawn in: it did not jump down when it came.
    await expect(
      page.evaluate(() => (window as unknown as { framesWithoutTools: number }).framesWithoutTools),
    ).resolves.toBe(0);
    // The cut edge fades out, saying there is more; scrolled to the end, the other edge does.
    const fades = async () => ({
      left: await page.locator('.dag-more.left').count(),
      right: await page.locator('.dag-more.right').count(),
    });
    await expect(fades()).resolves.toEqual({ left: 0, right: 1 });
    await box.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await expect.poll(fades).toEqual({ left: 1, right: 0 });
    await box.evaluate((el) => el.scrollTo({ left: 0 }));
    await expect.poll(fades).toEqual({ left: 0, right: 1 });
    await page.getByRole('button', { name: 'Fit to width' }).click();
    await expect.poll(async () => (await right()) <= (await edge())).toBe(true);
    await expect.poll(fades).toEqual({ left: 0, right: 0 });
    await shot(page, 'approver-30-steps-fit');
    await page.getByRole('button', { name: 'Actual size' }).click();
    // A step planned without a description: its action is not said a second time as one.
    await page.locator('svg.dag [data-step-id="archive"]').click();
    const panel = page.getByRole('complementary', { name: 'Step archive' });
    await expect(panel.locator('dt').allInnerTexts()).resolves.not.toContain('Description');
    await expect(panel.locator('dt').allInnerTexts()).resolves.toContain('Action');
    expect(errors).toEqual([]);
    await page.close();

    // Nor on the approval link's page, where the description goes under the step's id.
    const link = await env.hooks.approvalLink(runId);
    const approval = await openPage(`${link.pathname}${link.search}`);
    await approval.page.locator('table.plan-steps tbody tr').first().waitFor({ timeout: 15_000 });
    await expect(approval.page.locator('table.plan-steps .description').count()).resolves.toBe(0);
    expect(approval.errors).toEqual([]);
    await approval.page.close();
  }, 60_000);

  it('lists a 30-step plan’s steps with their parameters under the graph while it awaits approval, and not once approved', async () => {
    const prompt = 'Summarise the quarterly report for the board. '.repeat(20);
    const steps = Array.from({ length: 30 }, (_, i) => ({
      id: `step_${String(i + 1).padStart(2, '0')}`,
      action: 'demo.echo',
      // Every third step says what it is for; the others repeat the action (said once, as the action).
      description: i % 3 === 0 ? `Echo row ${i + 1} of the ledger` : 'demo.echo',
      parameters: i === 6 ? { prompt, model: 'small', n: i } : { row: i + 1, label: `row ${i + 1}` },
      dependencies: i === 0 ? [] : [`step_${String(i).padStart(2, '0')}`],
    }));
    const runId = await awaitingApproval(
      { goal: 'Thirty steps, read before approving', steps },
      { max_steps: 30 },
    );
    const { page, errors } = await openPage(`/#/runs/${runId}`);
    const table = page.getByRole('region', { name: '30 steps to approve' }).locator('table.plan-steps');
    const rows = table.locator('tbody tr');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(30);
    // Below the graph, not instead of it.
    const graphBottom = (await page.locator('.graph-view').boundingBox())!;
    expect((await table.boundingBox())!.y).toBeGreaterThanOrEqual(graphBottom.y + graphBottom.height);
    const cells = await rows.evaluateAll((trs) =>
      trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.innerText.trim())),
    );
    expect(cells.map((c) => c[0]!.split('\n')[0])).toEqual(steps.map((s) => s.id));
    expect(cells.map((c) => c[1])).toEqual(steps.map(() => 'demo.echo'));
    expect(cells.map((c) => c[2])).toEqual(steps.map((s) => s.dependencies.join(', ') || '—'));
    // Each action on a line of its own, the parameters folded or whole: their long JSON once squeezed
    // the other columns to a few letters ("demo.e|cho").
    const actionLines = () =>
      rows.evaluateAll((trs) =>
        trs.map((tr) => {
          const range = document.createRange();
          range.selectNodeContents(tr.children[1]!);
          return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size;
        }),
      );
    await expect(actionLines()).resolves.toEqual(steps.map(() => 1));
    // A description under its id, unless it is the action again.
    const described = await rows.evaluateAll((trs) =>
      trs.map((tr) => tr.querySelector('.description')?.textContent ?? null),
    );
    expect(described).toEqual(steps.map((s) => (s.description === s.action ? null : s.description)));
    // Every step's parameters as compact JSON; the long prompt folded, its other keys still shown.
    const params = cells.map((c) => c[3]);
    steps.forEach((s, i) => expect(i === 6 || params[i] === JSON.stringify(s.parameters)).toBe(true));
    const long = rows.nth(6);
    const whole = JSON.stringify(steps[6]!.parameters);
    const unfold = long.getByRole('button', { name: /^show all [\d,.]+ characters$/ });
    await expect(long.locator('code').last().innerText()).resolves.toMatch(
      /^\{"prompt":"Summarise the quarterly report for the board\. Summ[^"]*…,"model":"small","n":6\}$/,
    );
    await expect(unfold.getAttribute('aria-expanded')).resolves.toBe('false');
    await shot(page, 'approver-30-steps-table');
    // Shown whole from the keyboard, and folded again.
    await unfold.focus();
    await page.keyboard.press('Enter');
    await expect(long.locator('code').last().innerText()).resolves.toBe(whole);
    const fold = long.getByRole('button', { name: 'fold' });
    await expect(fold.getAttribute('aria-expanded')).resolves.toBe('true');
    await expect(hasFocus(fold)).resolves.toBe(true);
    await shot(page, 'approver-30-steps-table-unfolded');
    await expect(actionLines()).resolves.toEqual(steps.map(() => 1));
    await page.keyboard.press('Space');
    await expect(long.locator('code').last().innerText()).resolves.not.toBe(whole);
    expect(errors).toEqual([]);

    // On a phone: every row there, nothing wider than the screen.
    const phone = await env.browser.newPage({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    await phone.goto(`${env.server.base}/#/runs/${runId}`);
    const phoneRows = phone.locator('section.approve-steps table.plan-steps tbody tr');
    await expect.poll(() => phoneRows.count(), { timeout: 15_000 }).toBe(30);
    await phoneRows
      .nth(6)
      .getByRole('button', { name: /^show all/ })
      .click();
    await expect(
      phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
    ).resolves.toBe(true);
    await phoneRows.nth(6).scrollIntoViewIfNeeded();
    await shot(phone, 'approver-30-steps-table-phone');
    await phone.close();

    // Approved: what each step did is the graph's and the step panel's to tell; the table goes.
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('[data-run-status="completed"]').waitFor({ timeout: 15_000 });
    await expect(page.locator('table.plan-steps').count()).resolves.toBe(0);
    await expect(page.locator('svg.dag [data-step-id]').count()).resolves.toBe(30);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('links a step’s child run and the child back to its parent; names a failed step’s Retry for the step', async () => {
    const runId = await startRun(
      {
        goal: 'Parent of a child',
        steps: [
          echo('prepare'),
          {
            id: 'delegate',
            action: 'agent.dispatch',
            parameters: { plan: { goal: 'The child’s work', steps: [echo('c1'), echo('c2', ['c1'])] } },
            dependencies: ['prepare'],
          },
          {
            id: 'push',
            action: 'demo.flaky',
            parameters: { fail_times: 5, key: `push-${Date.now()}` },
            dependencies: ['delegate'],
          },
        ],
      },
      { retry_failed_steps: 0 },
    );
    const ended = (await waitForStatus(runId, 'failed')) as {
      step_results: Record<string, { run_id?: string }>;
    };
    const child = ended.step_results.delegate?.run_id;
    expect(child).toMatch(/^run_[0-9a-f]{32}$/);
    const { page, errors } = await openPage(`/#/runs/${runId}`);
    await page.locator('svg.dag [data-step-id="push"]').click({ timeout: 15_000 });
    const failed = page.getByRole('complementary', { name: 'Step push' });
    // Two buttons "Retry" (the run's, the step's) read alike: the step's names the step.
    await expect(failed.getByRole('button', { name: 'Retry push', exact: true }).count()).resolves.toBe(1);
    await expect(page.getByRole('button', { name: 'Retry', exact: true }).count()).resolves.toBe(1);
    await page.locator('svg.dag [data-step-id="delegate"]').click();
    const panel = page.getByRole('complementary', { name: 'Step delegate' });
    const link = panel.getByRole('link', { name: child! });
    await link.waitFor({ timeout: 10_000 });
    await shot(page, 'approver-child-run-link');
    await link.click();
    await page.locator('h1', { hasText: 'The child’s work' }).waitFor({ timeout: 15_000 });
    expect(page.url()).toContain(`#/runs/${child}`);
    // The child's page links back to its parent, naming the step that started it.
    const back = page.locator('.run-id').getByRole('link', { name: runId });
    await back.waitFor({ timeout: 10_000 });
    await expect(page.locator('.run-id').innerText()).resolves.toBe(
      `${child} · Child of ${runId} (step delegate) · all runs`,
    );
    await shot(page, 'approver-child-run-parent-link');
    await back.click();
    await page.locator('h1', { hasText: 'Parent of a child' }).waitFor({ timeout: 15_000 });
    expect(page.url()).toContain(`#/runs/${runId}`);
    // A run no step started says nothing of a parent.
    await expect(page.locator('.run-id').innerText()).resolves.toBe(`${runId} · all runs`);
    // In the list, the child's row says whose child it is and links there; the parent's says nothing.
    await page.goto(page.url().replace(/#.*$/, '#/'));
    const childRow = page.locator(`tr[data-run-id="${child}"]`);
    await childRow.waitFor({ timeout: 10_000 });
    await expect(childRow.locator('.child-of').innerText()).resolves.toBe(`child of ${runId.slice(0, 12)}…`);
    await expect(page.locator(`tr[data-run-id="${runId}"] .child-of`).count()).resolves.toBe(0);
    await shot(page, 'approver-runs-list-child');
    await childRow.getByRole('link', { name: `child of ${runId}` }).click();
    await page.locator('h1', { hasText: 'Parent of a child' }).waitFor({ timeout: 15_000 });
    expect(page.url()).toContain(`#/runs/${runId}`);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
