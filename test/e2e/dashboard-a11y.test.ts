/**
 * The dashboard for a person approving runs with a keyboard or a screen reader, in chromium against
 * `wrangler dev`: axe-core finds no serious or critical violation on any page or state (the runs
 * list empty and full, a run awaiting approval — its plan's steps listed, a step's long parameters
 * shown whole —, running, completed, failed, rejected, its step panel and Modify editor open, the
 * approval link's page, the API reference; light and dark, desktop and phone); a run's change of
 * status is announced once (a polite live region, not each event) and a refused approval as an alert;
 * and a run is approved, opened, modified and cancelled with the keyboard alone, focus shown at every
 * stop and never dropped to the page's start after an action.
 */
import { describe, expect, it } from 'vitest';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { seriousViolations } from './axe';
import { holdableWebSockets, SHOTS } from './dashboard-helpers';
import { dashboardSetup } from './dashboard-setup';
import { echo } from '../fixtures/echo-steps';

const { env, api, waitForStatus } = dashboardSetup('dashboard-a11y', { webhooks: true });

const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };
const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};

async function startRun(plan: unknown, config: Record<string, unknown> = {}): Promise<string> {
  return ((await api('POST', '/v1/runs', { plan, config })) as { run_id: string }).run_id;
}
/** A run of `plan` awaiting approval, its webhook's link delivered to the test's receiver. */
async function awaitingApproval(plan: unknown): Promise<string> {
  const runId = await startRun(plan, {
    require_plan_approval: true,
    approval: { webhook_url: env.hooks.url },
  });
  await waitForStatus(runId, 'awaiting_approval');
  return runId;
}

/** A page in a context of its own (`bypassCSP`: axe's source goes in as an inline script). */
async function openPage(options: BrowserContextOptions, path: string, ready: string, init?: () => void) {
  const context = await env.browser.newContext({ ...options, bypassCSP: true });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  if (init) await page.addInitScript(init);
  await page.goto(`${env.server.base}${path}`);
  await page.locator(ready).first().waitFor({ timeout: 15_000 });
  return { page, errors, close: () => context.close() };
}

/** The focused element: its tag, name, and whether a focus ring is drawn (a 2 px outline or a shadow). */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return { tag: 'BODY', name: '', shown: false };
    // A graph node draws its ring on its box (its first rect), not round the whole group.
    const ring = el instanceof SVGGElement ? (el.querySelector(':scope > rect') ?? el) : el;
    const css = getComputedStyle(ring);
    const outline = css.outlineStyle !== 'none' && parseFloat(css.outlineWidth) >= 2;
    const label = (el as HTMLTextAreaElement).labels?.[0]?.firstChild?.textContent;
    return {
      tag: el.tagName,
      name: (el.getAttribute('aria-label') ?? label ?? el.textContent ?? '').trim().slice(0, 60),
      shown: outline || css.boxShadow !== 'none',
    };
  });
type Stop = Awaited<ReturnType<typeof focused>>;

/** Presses `key` until the focused element's name matches `name` (30 presses at most); every stop. */
async function pressUntil(page: Page, key: string, name: RegExp): Promise<Stop[]> {
  const stops: Stop[] = [];
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press(key);
    stops.push(await focused(page));
    if (name.test(stops.at(-1)!.name)) return stops;
  }
  throw new Error(`${key} never reached ${name}: ${stops.map((s) => s.name).join(' → ')}`);
}

describe('the dashboard for a keyboard or screen-reader user', () => {
  it('has no serious or critical axe violation on any page or state, light and dark, desktop and phone', async () => {
    type State = { name: string; path: string; ready: string; then?: (p: Page) => Promise<void> };
    const states: State[] = [{ name: 'runs list, empty', path: '/', ready: 'p.empty' }];
    const audit = async (list: State[], options: BrowserContextOptions, schemes: ('light' | 'dark')[]) => {
      const found: string[] = [];
      for (const colorScheme of schemes)
        for (const s of list) {
          const { page, errors, close } = await openPage({ ...options, colorScheme }, s.path, s.ready);
          await s.then?.(page);
          for (const v of await seriousViolations(page))
            found.push(
              `${s.name} [${colorScheme}]: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.join('; ')}`,
            );
          expect(errors).toEqual([]);
          await close();
        }
      return found;
    };
    // Before any run exists: the empty list.
    const found = await audit(states, DESKTOP, ['light', 'dark']);

    const waiting = await awaitingApproval({
      goal: 'Deploy the new pricing page',
      steps: [
        echo('build'),
        // Parameters long enough to be folded in the plan's table, with a button to show them whole.
        {
          id: 'deploy',
          action: 'demo.echo',
          description: 'Ship the build to the edge',
          parameters: { notes: 'Release notes for the pricing page. '.repeat(12), region: 'eu' },
          dependencies: ['build'],
        },
      ],
    });
    const running = await startRun({
      goal: 'Sleep a while',
      steps: [{ id: 'nap', action: 'demo.sleep', parameters: { ms: 120_000 } }],
    });
    // Completed after a modification (two versions to diff) and a retried step (drawn "×2").
    const completed = await awaitingApproval({ goal: 'Echo twice', steps: [echo('a'), echo('b', ['a'])] });
    await api('POST', `/v1/runs/${completed}/approval`, {
      decision: 'modify',
      plan: {
        goal: 'Echo twice',
        steps: [{ id: 'a', action: 'demo.flaky', parameters: { fail_times: 1 } }, echo('b', ['a'])],
      },
    });
    const failed = await startRun(
      {
        goal: 'Fail for sure',
        steps: [{ id: 'f', action: 'demo.flaky', parameters: { fail_times: 100 } }, echo('g', ['f'])],
      },
      { retry_failed_steps: 0 },
    );
    const rejected = await awaitingApproval({ goal: 'Reject me', steps: [echo('a')] });
    await api('POST', `/v1/runs/${rejected}/approval`, { decision: 'reject', comment: 'not now' });
    await Promise.all([
      waitForStatus(running, 'running'),
      waitForStatus(completed, 'completed'),
      waitForStatus(failed, 'failed'),
      waitForStatus(rejected, 'cancelled'),
    ]);
    const link = await env.hooks.approvalLink(waiting);
    const linkPath = `${link.pathname}${link.search}`;
    const run = (id: string, status: string) => ({
      path: `/#/runs/${id}`,
      ready: `[data-run-status="${status}"]`,
    });
    const desktop: State[] = [
      { name: 'runs list', path: '/', ready: 'table.runs' },
      {
        name: 'awaiting approval, the plan’s steps listed',
        ...run(waiting, 'awaiting_approval'),
        then: (p) => p.locator('section.approve-steps table.plan-steps').waitFor(),
      },
      { name: 'running', ...run(running, 'running') },
      { name: 'completed', ...run(completed, 'completed') },
      ...Object.entries({
        timeline: '.tl-bar',
        events: 'ol.events li',
        versions: '.diff li.changed',
        planning: 'section.planning table',
      }).map(([tab, drawn]) => ({
        name: `completed: ${tab}`,
        path: `/#/runs/${completed}/${tab}`,
        ready: '[data-run-status="completed"]',
        then: (p: Page) => p.locator(drawn).first().waitFor(),
      })),
      { name: 'failed', ...run(failed, 'failed') },
      { name: 'rejected', ...run(rejected, 'cancelled') },
      {
        name: 'step panel open',
        ...run(failed, 'failed'),
        then: async (p) => {
          await p.click('svg.dag [data-step-id="f"]');
          await p.getByRole('complementary', { name: 'Step f' }).waitFor();
        },
      },
      {
        name: 'awaiting approval: a step’s parameters shown whole',
        ...run(waiting, 'awaiting_approval'),
        then: async (p) => {
          const unfold = p.getByRole('region', { name: '2 steps to approve' }).getByRole('button', {
            name: /^show all/,
          });
          await unfold.click();
          await p.getByRole('button', { name: 'fold', expanded: true }).waitFor();
        },
      },
      {
        name: 'Modify editor open',
        ...run(waiting, 'awaiting_approval'),
        then: async (p) => {
          await p.getByRole('button', { name: 'Modify' }).click();
          await p.locator('.modify .check .ok').waitFor({ timeout: 10_000 });
        },
      },
      { name: 'approval link', path: linkPath, ready: 'main.approval' },
    ];
    found.push(...(await audit(desktop, DESKTOP, ['light', 'dark'])));
    // Swagger UI has one palette: light only.
    found.push(
      ...(await audit([{ name: 'API reference', path: '/docs', ready: '.opblock' }], DESKTOP, ['light'])),
    );
    const phone: State[] = [
      { name: 'phone: runs list', path: '/', ready: 'table.runs' },
      {
        name: 'phone: awaiting approval, a step’s parameters shown whole',
        ...run(waiting, 'awaiting_approval'),
        then: async (p) => {
          await p
            .locator('section.approve-steps')
            .getByRole('button', { name: /^show all/ })
            .click();
          await p.getByRole('button', { name: 'fold', expanded: true }).waitFor();
        },
      },
      { name: 'phone: approval link', path: linkPath, ready: 'main.approval' },
    ];
    found.push(...(await audit(phone, PHONE, ['light', 'dark'])));
    expect(found).toEqual([]);
  }, 180_000);

  it('announces a change of status once (not each event), and a refused approval as an alert, the run read again', async () => {
    const runId = await awaitingApproval({
      goal: 'Announce me',
      steps: [echo('one'), echo('two', ['one']), echo('three', ['two'])],
    });
    const { page, errors, close } = await openPage(
      DESKTOP,
      `/#/runs/${runId}`,
      '[data-run-status="awaiting_approval"]',
      holdableWebSockets,
    );
    const region = page.getByRole('status').and(page.locator('[data-run-announcement]'));
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    // There before any change (a live region added with its text is not read), and silent on arrival.
    await expect(region.innerText()).resolves.toBe('');

    // Approved elsewhere while the page's events are held back: the page's own Approve is refused.
    // Not before the page has its answers: a read of the run it asked for on a backlog's event, slow
    // on a loaded machine, came back after the approval and took the Approve button away.
    await page.waitForLoadState('networkidle');
    await page.evaluate(() => (window as unknown as { holdSockets: () => void }).holdSockets());
    await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' });
    await page.getByRole('button', { name: 'Approve' }).focus();
    await page.keyboard.press('Enter');
    const alert = page.getByRole('alert');
    await alert.waitFor({ timeout: 10_000 });
    await expect(alert.innerText()).resolves.toMatch(/was already approved/);
    // The page read the run again: it shows the run as the API has it, not "awaiting approval" until
    // the events come — and none can come, they are held.
    const badge = page.locator('.toolbar .badge');
    await expect
      .poll(() => badge.getAttribute('data-run-status'), { timeout: 10_000 })
      .toMatch(/^(running|completed)$/);
    const shown = await badge.getAttribute('data-run-status');
    const now = (await api('GET', `/v1/runs/${runId}`)) as { status: string };
    expect(shown === now.status || (shown === 'running' && now.status === 'completed')).toBe(true);
    await expect(page.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Reject' }).count()).resolves.toBe(0);
    // Told once, as a change of status.
    await expect
      .poll(() => region.innerText())
      .toMatch(/^Status: (running|completed)\. \d of 3 steps completed\.$/);
    await page.screenshot({ path: `${SHOTS}/a11y-refused-approval.png` });
    // The button pressed went with the run's new status: focus on the run's heading, not the page's start.
    await expect.poll(() => focused(page).then((f) => f.tag)).toBe('H1');
    await expect(alert.innerText()).resolves.toMatch(/\S/);
    await close();

    // Followed live: approved and run to the end, three steps and a dozen events, told twice (the
    // steps take a moment each, so that the page sees the run running).
    const nap = (id: string, deps: string[] = []) => ({
      id,
      action: 'demo.sleep',
      parameters: { ms: 300 },
      dependencies: deps,
    });
    const second = await awaitingApproval({
      goal: 'Announce me again',
      steps: [nap('one'), nap('two', ['one']), nap('three', ['two'])],
    });
    const live = await openPage(DESKTOP, `/#/runs/${second}`, '[data-run-status="awaiting_approval"]');
    const liveRegion = live.page.locator('[data-run-announcement]');
    await live.page.getByRole('button', { name: 'Approve' }).waitFor();
    await liveRegion.evaluate((el) => {
      const said: string[] = [];
      Object.assign(window, { said });
      new MutationObserver(() => said.push(el.textContent ?? '')).observe(el, {
        subtree: true,
        childList: true,
        characterData: true,
      });
    });
    await api('POST', `/v1/runs/${second}/approval`, { decision: 'approve' });
    await live.page.waitForSelector('[data-run-status="completed"]', { timeout: 15_000 });
    await expect.poll(() => liveRegion.innerText()).toBe('Status: completed. 3 of 3 steps completed.');
    const said = await live.page.evaluate(() => (window as unknown as { said: string[] }).said);
    // (An empty region is no announcement.)
    expect(said.filter(Boolean).map((s) => /^Status: ([a-z ]+)\./.exec(s)?.[1])).toEqual([
      'running',
      'completed',
    ]);
    expect(errors).toEqual([]);
    expect(live.errors).toEqual([]);
    await live.close();
  }, 60_000);

  it('reads the run again after a refused Modify: the run approved elsewhere, its events held', async () => {
    const runId = await awaitingApproval({
      goal: 'Modify me late',
      steps: [echo('one'), echo('two', ['one'])],
    });
    const { page, errors, close } = await openPage(
      DESKTOP,
      `/#/runs/${runId}`,
      '[data-run-status="awaiting_approval"]',
      holdableWebSockets,
    );
    await page.getByRole('button', { name: 'Modify' }).click();
    const send = page.getByRole('button', { name: 'Approve modified plan' });
    await expect.poll(() => send.isEnabled(), { timeout: 10_000 }).toBe(true);
    await page.evaluate(() => (window as unknown as { holdSockets: () => void }).holdSockets());
    await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' });
    await send.click();
    // The editor goes with the run's new status, and the page says why the plan was not sent.
    const badge = page.locator('.toolbar .badge');
    await expect
      .poll(() => badge.getAttribute('data-run-status'), { timeout: 10_000 })
      .toMatch(/^(running|completed)$/);
    await expect(page.getByRole('alert').innerText()).resolves.toMatch(/was already approved/);
    await expect(page.locator('section.modify').count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);
    expect(errors).toEqual([]);
    await close();
  }, 60_000);

  it('approves, opens a step, modifies and cancels with the keyboard alone, focus shown at every stop', async () => {
    const stops: Stop[] = [];
    // 1. Approve, after a look at a step's details.
    const first = await awaitingApproval({
      goal: 'Approve me by keyboard',
      steps: [echo('fetch'), echo('use', ['fetch'])],
    });
    const a = await openPage(DESKTOP, `/#/runs/${first}`, '[data-run-status="awaiting_approval"]');
    await a.page.getByRole('button', { name: 'Approve' }).waitFor();
    stops.push(...(await pressUntil(a.page, 'Tab', /^fetch demo\.echo/)));
    await a.page.keyboard.press('Enter');
    await a.page.getByRole('complementary', { name: 'Step fetch' }).waitFor();
    await expect(a.page.locator('svg.dag [data-step-id="fetch"]').getAttribute('aria-pressed')).resolves.toBe(
      'true',
    );
    await a.page.screenshot({ path: `${SHOTS}/a11y-keyboard-step.png` });
    stops.push(...(await pressUntil(a.page, 'Shift+Tab', /^Approve$/)));
    await a.page.keyboard.press('Enter');
    await a.page.waitForSelector('[data-run-status="completed"]', { timeout: 15_000 });
    // The Approve button went with the decision; focus is on the run's heading, shown.
    // (Once the API has answered: the run may have been seen completed before that.)
    await expect
      .poll(() => focused(a.page))
      .toEqual({ tag: 'H1', name: 'Approve me by keyboard', shown: true });
    await a.page.screenshot({ path: `${SHOTS}/a11y-keyboard-approved.png` });
    expect(a.errors).toEqual([]);
    await a.close();

    // 2. Modify: the plan edited in the editor and sent; then the running run cancelled.
    const second = await awaitingApproval({
      goal: 'Modify me by keyboard',
      steps: [{ id: 'wait', action: 'demo.sleep', parameters: { ms: 60_000 } }],
    });
    const b = await openPage(DESKTOP, `/#/runs/${second}`, '[data-run-status="awaiting_approval"]');
    await b.page.getByRole('button', { name: 'Modify' }).waitFor();
    stops.push(...(await pressUntil(b.page, 'Tab', /^Modify$/)));
    await b.page.keyboard.press('Space');
    await expect(b.page.getByRole('button', { name: 'Modify' }).getAttribute('aria-expanded')).resolves.toBe(
      'true',
    );
    stops.push(...(await pressUntil(b.page, 'Tab', /^The plan to approve instead/)));
    // The step renamed, all of it typed in.
    await b.page.keyboard.press('ControlOrMeta+A');
    const edited = {
      goal: 'Modify me by keyboard',
      steps: [{ id: 'nap', action: 'demo.sleep', parameters: { ms: 60_000 } }],
    };
    await b.page.keyboard.type(JSON.stringify(edited));
    await b.page.locator('.modify .check .ok', { hasText: 'critical path nap' }).waitFor({ timeout: 10_000 });
    stops.push(...(await pressUntil(b.page, 'Tab', /^Approve modified plan$/)));
    await b.page.keyboard.press('Enter');
    await b.page.waitForSelector('[data-run-status="running"]', { timeout: 15_000 });
    const sent = (await api('GET', `/v1/runs/${second}`)) as { plan: { steps: { id: string }[] } };
    expect(sent.plan.steps.map((s) => s.id)).toEqual(['nap']);
    await expect
      .poll(() => focused(b.page))
      .toEqual({ tag: 'H1', name: 'Modify me by keyboard', shown: true });
    stops.push(...(await pressUntil(b.page, 'Tab', /^Cancel$/)));
    await b.page.keyboard.press('Enter');
    await b.page.waitForSelector('[data-run-status="cancelled"]', { timeout: 15_000 });
    await expect
      .poll(() => focused(b.page))
      .toEqual({ tag: 'H1', name: 'Modify me by keyboard', shown: true });
    expect(b.errors).toEqual([]);
    await b.close();

    // 3. The approval link's page: Approve, and focus on what it did (read out), not the page's start.
    const third = await awaitingApproval({ goal: 'Approve my link by keyboard', steps: [echo('x')] });
    const link = await env.hooks.approvalLink(third);
    const c = await openPage(DESKTOP, `${link.pathname}${link.search}`, 'main.approval');
    stops.push(...(await pressUntil(c.page, 'Tab', /^Approve$/)));
    await c.page.keyboard.press('Enter');
    await expect
      .poll(() => focused(c.page))
      .toEqual({ tag: 'P', name: expect.stringMatching(/^Approved: the run is/), shown: true });
    await c.page.screenshot({ path: `${SHOTS}/a11y-keyboard-link-approved.png` });
    expect(c.errors).toEqual([]);
    await c.close();

    // Every stop on the way was a control with its focus drawn; none was the page itself.
    expect(stops.filter((s) => !s.shown || s.tag === 'BODY')).toEqual([]);
    expect(stops.length).toBeGreaterThan(10);
  }, 90_000);
});
