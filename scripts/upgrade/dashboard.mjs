/**
 * The dashboard across a deploy (scripts/upgrade-rehearsal.mjs, forward), in chromium as a person has
 * it: tabs that loaded the OLD release's dashboard stay open while the server is switched to THIS
 * release, and the person acts from them — approves a plan, answers a question — with the old page's
 * script talking to the new API; then THIS release's dashboard shows runs the old release wrote.
 * Screenshots go to test-results/screenshots/upgrade-*.png, for a person to look at.
 *
 * @example
 * const dash = await dashboardRuns({ create, call, until }); // under the old release
 * const tabs = await openTabs(base, dash, call, check);        // before the switch
 * await tabs.act();                                            // after it
 * await newDashboard(base, dash.ended, call, check);
 */
import { mkdirSync } from 'node:fs';
import { launchChromium } from '../../test/e2e/chromium.ts';

const SHOTS = 'test-results/screenshots';
const shot = (page, name) => page.screenshot({ path: `${SHOTS}/upgrade-${name}.png`, fullPage: true });
const sorted = (o) => JSON.stringify(Object.entries(o ?? {}).sort());
const statusOf = (page) => page.locator('[data-run-status]').getAttribute('data-run-status');

const UNDEFINED = /\bundefined\b|\bNaN\b|\[object Object\]|Invalid Date/;
/** What the page says holds no "undefined" or "NaN": a field the other release did not write. */
async function saysNothingUndefined(page, what, check, phase = 'forward') {
  const text = await page.locator('main').innerText();
  const at = text.search(UNDEFINED);
  check(
    `${phase} dashboard: ${what} says nothing undefined`,
    at < 0,
    at < 0 ? '' : JSON.stringify(text.slice(Math.max(0, at - 60), at + 60)),
  );
}

/** The page's event log, opened: its rows once `n` are shown, and no "undefined" in them. */
async function eventLog(page, n, what, check, phase = 'forward') {
  await page.getByRole('tab', { name: 'Events' }).click();
  const rows = await settle(
    () => page.locator('ol.events li').count(),
    (k) => k === n,
  );
  await saysNothingUndefined(page, `${what}, its event log`, check, phase);
  return rows;
}

/**
 * Under the old release: a run awaiting approval and one awaiting input (for its tabs), and runs it
 * ended — completed, failed, approved with a comment, answered, rejected — for this release's pages.
 */
export async function dashboardRuns({ create, call, until }) {
  const echo = (id, deps = []) => ({ id, action: 'demo.echo', parameters: { id }, dependencies: deps });
  const ask = (prompt) => ({ id: 'ask', action: 'human.input', parameters: { prompt } });
  const approval = { require_plan_approval: true };
  const runs = {
    approval: await create({ plan: { steps: [echo('d')] }, config: approval }),
    modify: await create({ plan: { steps: [echo('m')] }, config: approval }),
    input: await create({ plan: { steps: [ask('Which city?'), echo('e', ['ask'])] } }),
    done: await create({ plan: { steps: [echo('a'), echo('b', ['a'])] } }),
    failed: await create({
      plan: { steps: [{ id: 'f', action: 'demo.flaky', parameters: { fail_times: 9 } }] },
    }),
    approved: await create({ plan: { steps: [echo('g')] }, config: approval }),
    answered: await create({ plan: { steps: [ask('Go?'), echo('h', ['ask'])] } }),
    rejected: await create({ plan: { steps: [echo('r')] }, config: approval }),
  };
  const statusOfRun = async (id) => (await call('GET', `/v1/runs/${id}`)).body.status;
  const at = (id, status) =>
    until(
      `run ${id} ${status}`,
      () => statusOfRun(id),
      (s) => s === status,
    );
  await at(runs.approved, 'awaiting_approval');
  await call('POST', `/v1/runs/${runs.approved}/approval`, { decision: 'approve', comment: 'fine by me' });
  await at(runs.answered, 'awaiting_input');
  await call('POST', `/v1/runs/${runs.answered}/input`, { input: 'yes', step_id: 'ask' });
  await at(runs.rejected, 'awaiting_approval');
  await call('POST', `/v1/runs/${runs.rejected}/approval`, { decision: 'reject', comment: 'not today' });
  await at(runs.approval, 'awaiting_approval');
  await at(runs.modify, 'awaiting_approval');
  await at(runs.input, 'awaiting_input');
  for (const [id, status] of [
    [runs.done, 'completed'],
    [runs.failed, 'failed'],
    [runs.approved, 'completed'],
    [runs.answered, 'completed'],
    [runs.rejected, 'cancelled'],
  ])
    await at(id, status);
  return { ...runs, ended: [runs.done, runs.failed, runs.approved, runs.answered, runs.rejected] };
}

/** Polls `read()` until `done` holds (15 s); returns the last value read. */
async function settle(read, done, ms = 15_000) {
  let v;
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    v = await read().catch(() => undefined);
    if (done(v)) break;
  }
  return v;
}

/**
 * Opens run `approval` (awaiting approval), `input` (awaiting input) and `modify` (awaiting approval)
 * in the dashboard of the release serving now; `act()`, once the other release serves, approves the
 * first, answers the second and edits the third (Modify) from those same pages — not reloaded — and
 * checks what they then show. `phase`: `forward` (the old release's tabs, this release's API) or
 * `back` (this release's tabs, the old release's API, a rollback).
 */
export async function openTabs(base, { approval, input, modify }, call, check, phase = 'forward') {
  const [pages, api] =
    phase === 'forward' ? ['the old page', 'the new API'] : ['this release’s page', 'the old API'];
  const label = `${phase} dashboard`;
  mkdirSync(SHOTS, { recursive: true });
  const browser = await launchChromium();
  const open = async (id, waiting) => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base()}/#/runs/${id}`);
    const seen = await settle(
      () => statusOf(page),
      (s) => s === waiting,
    );
    check(`${label}: ${pages} shows ${id} ${waiting}`, seen === waiting, String(seen));
    return { page, errors };
  };
  const a = await open(approval, 'awaiting_approval');
  const q = await open(input, 'awaiting_input');
  const m = await open(modify, 'awaiting_approval');
  await shot(a.page, `${phase}-tab-before`);

  async function act() {
    try {
      // The page noticed the server go and come back; it is not reloaded.
      const approve = a.page.getByRole('button', { name: 'Approve', exact: true });
      await approve.waitFor({ timeout: 30_000 });
      await shot(a.page, `${phase}-tab-after-switch`);
      await approve.click();
      const approved = await settle(
        () => statusOf(a.page),
        (s) => s === 'completed',
        30_000,
      );
      await shot(a.page, `${phase}-tab-approved`);
      const alerts = await a.page.getByRole('alert').allInnerTexts();
      check(
        `${label}: Approve on ${pages}, sent to ${api}, and the page shows the run completed`,
        approved === 'completed' && alerts.length === 0,
        `${approved} ${alerts.join(' | ')}`,
      );

      const form = q.page.getByRole('form', { name: 'Answer the run' });
      await form.locator('textarea').fill('Oslo');
      await form.getByRole('button', { name: 'Send' }).click();
      const answered = await settle(
        () => statusOf(q.page),
        (s) => s === 'completed',
        30_000,
      );
      await shot(q.page, `${phase}-tab-answered`);
      const qAlerts = await q.page.getByRole('alert').allInnerTexts();
      check(
        `${label}: an answer sent from ${pages} taken by ${api}, the page shows it completed`,
        answered === 'completed' && qAlerts.length === 0,
        `${answered} ${qAlerts.join(' | ')}`,
      );
      // Modify: the page validates the edit as typed (POST /v1/plans/validate) and sends it.
      await m.page.getByRole('button', { name: 'Modify', exact: true }).click();
      const edited = {
        steps: [
          { id: 'm', action: 'demo.echo', parameters: { id: 'm' } },
          { id: 'added', action: 'demo.echo', parameters: { edited: true }, dependencies: ['m'] },
        ],
      };
      await m.page.locator('.modify textarea').fill(JSON.stringify(edited, null, 2));
      const send = m.page.getByRole('button', { name: 'Approve modified plan' });
      const enabled = await settle(
        () => send.isEnabled(),
        (e) => e === true,
      );
      await shot(m.page, `${phase}-tab-modify`);
      if (enabled) await send.click();
      const modified = await settle(
        () => statusOf(m.page),
        (s) => s === 'completed',
        30_000,
      );
      const run = (await call('GET', `/v1/runs/${modify}`)).body;
      await shot(m.page, `${phase}-tab-modified`);
      check(
        `${label}: Modify on ${pages}, validated and sent to ${api}; the edited plan completes`,
        enabled === true && modified === 'completed' && run.step_results?.added?.edited === true,
        `enabled ${enabled} ${modified} ${JSON.stringify(run.step_results)}`,
      );
      for (const [tab, id] of [
        [a, approval],
        [q, input],
        [m, modify],
      ]) {
        const events = (await call('GET', `/v1/runs/${id}/events?limit=1000`)).body.events ?? [];
        const rows = await eventLog(tab.page, events.length, `${pages} of ${id}`, check, phase);
        check(
          `${label}: ${pages}' event log lists all ${events.length} events, the other release's too`,
          rows === events.length,
          `${rows} rows`,
        );
      }
      await shot(a.page, `${phase}-tab-events`);
      const errors = [...a.errors, ...q.errors, ...m.errors];
      check(`${label}: no script error on ${pages}s`, errors.length === 0, errors.join(' | '));
    } finally {
      await browser.close();
    }
  }
  return { act, close: () => browser.close() };
}

/**
 * This release's dashboard on runs the old release wrote and ended: listed with their status, and
 * each run's page read (its status, every step's node, its event log) without an error.
 */
export async function newDashboard(base, ids, api, check) {
  mkdirSync(SHOTS, { recursive: true });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base()}/#/`);
    for (const id of ids) {
      const run = (await api('GET', `/v1/runs/${id}`)).body;
      const row = page.locator(`tr[data-run-id="${id}"] .badge`);
      // A rejected plan's run is listed as `rejected` (the API: cancelled, plan_rejected).
      const shown = run.termination_reason === 'plan_rejected' ? 'rejected' : run.status;
      const listed = await settle(
        () => row.innerText(),
        (t) => t === shown,
      );
      check(
        `forward dashboard: the new runs list shows the old run ${id} ${shown}`,
        listed === shown,
        String(listed),
      );
    }
    await shot(page, 'new-list');
    for (const id of ids) {
      const run = (await api('GET', `/v1/runs/${id}`)).body;
      const events = (await api('GET', `/v1/runs/${id}/events?limit=1000`)).body.events ?? [];
      await page.goto(`${base()}/#/runs/${id}`);
      const shown = await settle(
        () => statusOf(page),
        (s) => s === run.status,
      );
      const nodes = async () =>
        Object.fromEntries(
          await page
            .locator('svg.dag [data-step-id]')
            .evaluateAll((ns) => ns.map((n) => [n.dataset.stepId, n.dataset.status])),
        );
      // Until every node says what the API says (the page draws the graph, then the events' statuses).
      const drawn = await settle(nodes, (n) => sorted(n ?? {}) === sorted(run.step_statuses));
      check(
        `forward dashboard: the new page reads the old run ${id}: ${run.status}, each step's node as the API says`,
        shown === run.status && sorted(drawn) === sorted(run.step_statuses),
        `${shown} ${JSON.stringify(drawn)} vs ${JSON.stringify(run.step_statuses)}`,
      );
      await shot(page, `new-page-${run.status}-${ids.indexOf(id)}`);
      await saysNothingUndefined(page, `the new page of ${id}`, check);
      const rows = await eventLog(page, events.length, `the new page of ${id}`, check);
      await shot(page, `new-events-${run.status}-${ids.indexOf(id)}`);
      const alerts = await page.getByRole('alert').allInnerTexts();
      check(
        `forward dashboard: its event log lists the old release's ${events.length} events, no error shown`,
        rows === events.length && alerts.length === 0,
        `${rows} rows ${alerts.join(' | ')}`,
      );
    }
    check('forward dashboard: no script error on the new pages', errors.length === 0, errors.join(' | '));
  } finally {
    await browser.close();
  }
}

/**
 * A tab of this release's dashboard on run `id`, stored in a format the old release cannot read
 * (format 2), left open across a rollback: `after()`, under the old release, checks what the page
 * shows then — the run as last seen, and the old release's answer — without a script error.
 */
export async function newerFormatTab(base, id, check) {
  mkdirSync(SHOTS, { recursive: true });
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base()}/#/runs/${id}`);
  const before = await settle(
    () => statusOf(page),
    (s) => s === 'awaiting_approval',
  );
  async function after() {
    try {
      // The page tries the run again (its socket, then its snapshot): the old release answers 503,
      // which the page says (before this release it said "Connection lost", test/e2e/dashboard-newer-format.test.ts).
      const text = await settle(
        () => page.locator('main').innerText(),
        (t) => (t ?? '').includes('run_newer_format'),
        30_000,
      );
      await shot(page, 'back-tab-newer-format');
      check(
        'back dashboard: this release’s page of a format-2 run, across the rollback, keeps it and says what the old release answers (run_newer_format), not "Connection lost"',
        before === 'awaiting_approval' &&
          (text ?? '').includes('run_newer_format') &&
          !(text ?? '').includes('Connection lost') &&
          errors.length === 0,
        `${before} ${JSON.stringify((text ?? '').slice(0, 400))} ${errors.join(' | ')}`,
      );
    } finally {
      await browser.close();
    }
  }
  return { after, close: () => browser.close() };
}
