/**
 * A big run's page while it reads the run's past, in chromium against `wrangler dev`: the events of a
 * run of thousands of steps take seconds to replay (its WebSocket backlog), and meanwhile the page
 * says what the run is now — the snapshot's step counts and colours, no running time made up from
 * the events so far — and neither redraws nor reads the run again for each event on the way. The
 * page's WebSockets relay only what the test lets through, so "meanwhile" is a state, not a moment.
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import type { Json } from './dashboard-helpers';
import { dashboardSetup } from './dashboard-setup';

const { api, waitForStatus, open, shot } = dashboardSetup('dashboard-big-run-e2e');

/**
 * Holds the page's reads of the run's past (`GET /v1/runs/:id/events`) whose `after` is at least
 * `from`, until `release()` — never, if the test does not call it. The pages before are read as they
 * come; every read's query is kept, in order.
 */
async function holdPages(page: Page, from: number) {
  const reads: URLSearchParams[] = [];
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  await page.route(
    (url) => url.pathname.endsWith('/events'),
    async (route) => {
      const query = new URL(route.request().url()).searchParams;
      reads.push(query);
      if (Number(query.get('after')) >= from) await released;
      await route.continue().catch(() => {});
    },
  );
  return { reads, release };
}

/** A completed run of `n` independent echo steps (three events a step: more than 2,000 for 800). */
async function completedWideRun(n: number): Promise<string> {
  const steps = Array.from({ length: n }, (_, i) => ({
    id: `s${i}`,
    action: 'demo.echo',
    parameters: { i },
  }));
  const created = await api('POST', '/v1/runs', {
    plan: { goal: `wide ${n}`, steps },
    config: { execution_mode: 'parallel', max_parallel: 50, max_steps: n },
  });
  const runId = created.run_id as string;
  await waitForStatus(runId, 'completed');
  return runId;
}

it('says the snapshot’s counts and colours while it replays the past, no running time, no action yet', async () => {
  const runId = await completedWideRun(800);
  const snapshot = (await api('GET', `/v1/runs/${runId}`)) as Json & { last_seq: number };
  expect(snapshot.last_seq).toBeGreaterThan(2000);
  // The first 2,000 events of the past, then nothing: the page has not read up to its snapshot.
  const { page, errors } = await open(`/#/runs/${runId}`, async (p) => void (await holdPages(p, 2000)));
  await page.locator('[data-run-status="completed"]').waitFor();
  await page.getByRole('tab', { name: 'Events' }).click();
  await page.getByRole('button', { name: 'Event 2000 in full' }).waitFor();
  expect(await page.locator('.step-counts').textContent()).toContain('800/800 steps completed');
  await page.getByRole('tab', { name: 'Graph' }).click();
  await shot(page, 'big-run-replaying');
  const statuses = await page.$$eval('[data-step-id]', (nodes) =>
    nodes.map((n) => n.getAttribute('data-status')),
  );
  expect(statuses.length).toBe(800);
  expect(statuses.filter((s) => s !== 'completed')).toEqual([]);
  // How long it ran is said once the events are read to its end (not "minutes" ticking on).
  expect(await page.locator('[data-run-time]').count()).toBe(0);
  expect(await page.locator('main').getAttribute('aria-busy')).toBe('true');
  expect(errors).toEqual([]);
  await page.close();
}, 60_000);

it('reads the run once while it replays a past whose events would each have it read again', async () => {
  // PlanAuthored, ApprovalRequested, RunResumed and RunTerminated: each has a page that is following
  // the run live read its snapshot again. On the way to the snapshot already read, none does.
  const steps = Array.from({ length: 50 }, (_, i) => ({
    id: `s${i}`,
    action: 'demo.echo',
    parameters: { i },
  }));
  const created = await api('POST', '/v1/runs', {
    plan: { goal: 'approved then run', steps },
    config: { execution_mode: 'parallel', require_plan_approval: true, max_steps: 50 },
  });
  const runId = created.run_id as string;
  await waitForStatus(runId, 'awaiting_approval');
  await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' });
  await waitForStatus(runId, 'completed');
  let pages!: Awaited<ReturnType<typeof holdPages>>;
  const { page, errors } = await open(`/#/runs/${runId}`, async (p) => void (pages = await holdPages(p, 0)));
  await page.locator('[data-run-status="completed"]').waitFor();
  const reads: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === `/v1/runs/${runId}`) reads.push(r.url());
  });
  pages.release();
  // Caught up: actions are offered (Delete, on an ended run), and the run time is said.
  await page.getByRole('button', { name: 'Delete' }).waitFor();
  await page.locator('[data-run-time]').waitFor();
  // At most the read its last event (RunTerminated, the snapshot's own last) asks for.
  expect(reads.length).toBeLessThanOrEqual(1);
  expect(errors).toEqual([]);
  await page.close();
}, 60_000);

it('reads a big run’s past in pages of 1,000 over HTTP, none over the WebSocket, and draws the graph in view', async () => {
  // Past 2,000 steps the graph draws only the part of it in view (graph-window.ts).
  const n = 2100;
  const runId = await completedWideRun(n);
  const snapshot = (await api('GET', `/v1/runs/${runId}`)) as Json & { last_seq: number };
  expect(snapshot.last_seq).toBeGreaterThan(3 * n);
  let pages!: Awaited<ReturnType<typeof holdPages>>;
  let socketMessages = 0;
  const { page, errors } = await open(`/#/runs/${runId}`, async (p) => {
    pages = await holdPages(p, Infinity);
    p.on('websocket', (ws) => ws.on('framereceived', () => (socketMessages += 1)));
  });
  await page.getByRole('button', { name: 'Delete' }).waitFor();
  await page.locator('[data-run-time]').waitFor();
  // The past, a page after the last: each asked after the seq the one before ended at, at most 1,000.
  const past = pages.reads.filter((q) => q.get('limit') !== '1');
  expect(past.every((q) => Number(q.get('limit')) <= 1000)).toBe(true);
  expect(past.length).toBeLessThanOrEqual(Math.ceil(snapshot.last_seq / 1000) + 2);
  expect(Number(past[0]?.get('after'))).toBe(0);
  // None of the past came over a socket (an ended run read to its end opens none).
  expect(socketMessages).toBe(0);
  expect(await page.locator('.step-counts').textContent()).toContain(`${n}/${n} steps completed`);
  // A screenful of steps and a screen around it, not 2,100 (each seven elements).
  const drawn = () =>
    page.$$eval('[data-step-id]', (nodes) => nodes.map((e) => e.getAttribute('data-step-id')));
  const first = await drawn();
  expect(first).toContain('s0');
  expect(first.length).toBeLessThan(200);
  await shot(page, 'big-run-windowed-top');
  // Scrolled to its end, the graph draws the last steps.
  await page.locator('.dag-scroll').evaluate((box) => box.scrollTo(0, box.scrollHeight));
  await page.locator(`[data-step-id="s${n - 1}"]`).waitFor();
  expect((await drawn()).length).toBeLessThan(200);
  expect(await page.locator(`[data-step-id="s${n - 1}"]`).getAttribute('data-status')).toBe('completed');
  await shot(page, 'big-run-windowed-end');
  expect(errors).toEqual([]);
  await page.close();
}, 90_000);

it('lists a big plan awaiting approval a page of rows at a time, and Modify edits it a step a line', async () => {
  const n = 2100;
  const steps = Array.from({ length: n }, (_, i) => ({
    id: `s${i}`,
    action: 'demo.echo',
    parameters: { i },
  }));
  const created = await api('POST', '/v1/runs', {
    plan: { goal: `approve ${n}`, steps },
    config: { execution_mode: 'parallel', max_parallel: 50, max_steps: n, require_plan_approval: true },
  });
  const runId = created.run_id as string;
  await waitForStatus(runId, 'awaiting_approval');
  const { page, errors } = await open(`/#/runs/${runId}`);
  await page.getByRole('button', { name: 'Modify' }).waitFor();
  // The table of the steps to approve: its first 200 rows, and the rest a click away, 200 at a time.
  const rows = page.locator('.approve-steps [data-plan-step]');
  expect(await page.locator('#approve-steps-title').textContent()).toBe(`${n} steps to approve`);
  expect(await rows.count()).toBe(200);
  await page.getByRole('button', { name: 'Show 200 more steps' }).click();
  expect(await rows.count()).toBe(400);
  expect(await rows.last().getAttribute('data-plan-step')).toBe('s399');
  // The editor: the whole plan, a step a line (not 23 lines a step), its preview listing 100 steps.
  await page.getByRole('button', { name: 'Modify' }).click();
  const editor = page.locator('.modify textarea');
  const text = await editor.inputValue();
  expect(text.split('\n').length).toBeLessThan(n + 10);
  expect((JSON.parse(text) as { steps: unknown[] }).steps.length).toBe(n);
  await page.locator('.modify .ok').waitFor();
  expect(await page.locator('.modify ol.preview li').count()).toBe(100);
  await shot(page, 'big-run-modify');
  // One step's line edited, and approved: the run runs the plan as edited.
  const edited = text.replace('"parameters":{"i":1234}', '"parameters":{"i":"edited"}');
  expect(edited).not.toBe(text);
  await editor.fill(edited);
  await page.locator('section.modify button.primary:not([disabled])').waitFor();
  await page.getByRole('button', { name: 'Approve modified plan' }).click();
  const run = (await waitForStatus(runId, 'completed')) as Json & {
    plan: { steps: { id: string; parameters: unknown }[] };
  };
  expect(run.plan.steps.find((s) => s.id === 's1234')?.parameters).toEqual({ i: 'edited' });
  expect(run.plan.steps.length).toBe(n);
  expect(errors).toEqual([]);
  await page.close();
}, 90_000);

it('says it is reading a plan the snapshot leaves out, not that there is no plan', async () => {
  // The API leaves a plan over 8 MiB out of the snapshot (`$elided`: a 100,000-step plan); its steps
  // come with the run's events. Here an 800-step run's snapshot is answered as the API answers for such
  // a plan, and its past is held: the page has the snapshot's counts, and no steps yet.
  const runId = await completedWideRun(800);
  const { page, errors } = await open(`/#/runs/${runId}`, async (p) => {
    await holdPages(p, 0);
    await p.route(`**/v1/runs/${runId}`, async (route) => {
      const answer = await route.fetch();
      const run = (await answer.json()) as Json;
      run.plan = { $elided: { bytes: 9_689_039, ref: 'plan', href: `/v1/runs/${runId}/plans/1` } };
      await route.fulfill({ response: answer, json: run });
    });
  });
  await page.locator('.step-counts', { hasText: '800/800 steps completed' }).waitFor();
  expect(await page.locator('[data-plan-reading]').textContent()).toBe('Reading the plan of 800 steps…');
  expect(await page.getByText('No plan yet.').count()).toBe(0);
  expect(errors).toEqual([]);
  await page.close();
}, 60_000);
