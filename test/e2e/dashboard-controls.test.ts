/**
 * The dashboard's controls and what it says about a run, in chromium against `wrangler dev`: the input
 * form sends once however often Send is clicked; `ask_user` about a failed step is answered with the
 * actions the run understands (Skip sends `{"action": "skip"}`); a rejection's comment is shown, a
 * cancellation's reason in neutral colours; the event log shows earlier events and any event in full
 * (a huge one's start, and the whole as a download);
 * an empty status filter says so and clears, and "rejected" finds a rejected run behind a page of
 * cancelled ones; the runs list says it is loading until it comes; a new run's config or input, and an approval page's data,
 * that do not parse or fit are said in the page's alert. Screenshots go to test-results/screenshots/.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { askThenUse, type Json } from './dashboard-helpers';
import { dashboardSetup } from './dashboard-setup';

const { env, api, waitForStatus, open, shot } = dashboardSetup('dashboard-controls');

async function startRun(plan: unknown, config: Json = {}): Promise<string> {
  return ((await api('POST', '/v1/runs', { plan, config })) as { run_id: string }).run_id;
}
/** The page of a run waiting for input, its answer form, and the bodies of the answers it POSTs. */
async function openAnswerForm(runId: string) {
  await waitForStatus(runId, 'awaiting_input');
  const { page, errors } = await open(`/#/runs/${runId}`);
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith('/input')) sent.push(r.postData() ?? '');
  });
  return { page, errors, sent, form: page.getByRole('form', { name: 'Answer the run' }) };
}
/** The seq of the question the run asks now (its last InputRequested): what an answer names. */
async function questionSeq(runId: string): Promise<number> {
  const { events } = (await api('GET', `/v1/runs/${runId}/events?limit=1000`)) as { events: Json[] };
  return events.findLast((e) => e.event_type === 'InputRequested')!.seq as number;
}
/** The text colour of an element, as the browser computes it. */
const colourOf = (l: Locator) => l.evaluate((el) => getComputedStyle(el).color);
/** The colour failures are drawn in (style.css --fail). */
const FAIL = 'rgb(192, 48, 48)';

describe('the dashboard’s controls', () => {
  it('sends a double-clicked answer once, and shows no error for it', async () => {
    const runId = await startRun(askThenUse('ask once'));
    const { page, errors, sent, form } = await openAnswerForm(runId);
    await form.getByText('Which city?').waitFor({ timeout: 10_000 });
    const asked = await questionSeq(runId);
    await form.locator('textarea').fill('Oslo');
    await form.getByRole('button', { name: 'Send' }).dblclick();
    await page.waitForSelector('[data-step-id="use"][data-status="completed"]', { timeout: 15_000 });
    const run = await waitForStatus(runId, 'completed');
    expect((run.step_results as Json).use).toEqual({ city: 'Oslo' });
    // A moment for a second request, had there been one, to come back with its error.
    await page.waitForTimeout(500);
    // The answer names the question it answers: a second one sent elsewhere is refused, not new information.
    expect(sent).toEqual([JSON.stringify({ input: 'Oslo', step_id: 'ask', question_seq: asked })]);
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    await expect(page.locator('.error').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows the JSON Schema a question gives, says why an answer that does not fit is refused, and takes one that does', async () => {
    const schema = { type: 'object', properties: { refund: { type: 'boolean' } }, required: ['refund'] };
    const runId = await startRun({
      goal: 'ask with a schema',
      steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'Refund?', schema } }],
    });
    const { page, errors, sent, form } = await openAnswerForm(runId);
    await form.getByText('Refund?').waitFor({ timeout: 10_000 });
    const asked = await questionSeq(runId);
    await expect(form.locator('.answer-schema pre').innerText()).resolves.toBe(
      JSON.stringify(schema, null, 2),
    );
    await form.locator('textarea').fill('maybe');
    await form.getByRole('button', { name: 'Send' }).click();
    await page.getByText(/does not fit the schema its question gave/).waitFor({ timeout: 10_000 });
    await shot(page, 'answer-refused-by-schema');
    await form.locator('textarea').fill('{"refund": true}');
    await form.getByRole('button', { name: 'Send' }).click();
    const run = await waitForStatus(runId, 'completed');
    expect((run.step_results as Json).ask).toEqual({ refund: true });
    expect(sent).toEqual([
      JSON.stringify({ input: 'maybe', step_id: 'ask', question_seq: asked }),
      JSON.stringify({ input: { refund: true }, step_id: 'ask', question_seq: asked }),
    ]);
    // The refusal was shown on the page, and nothing broke in it.
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('answers ask_user about a failed step with Skip, which sends {"action": "skip"}', async () => {
    const runId = await startRun(
      {
        goal: 'ask what to do',
        steps: [
          { id: 'f', action: 'demo.flaky', parameters: { fail_times: 5 } },
          { id: 'g', action: 'demo.echo', parameters: { v: 1 } },
        ],
      },
      { on_step_failure: 'replan', revision_strategy: 'ask_user', retry_failed_steps: 0 },
    );
    const { page, errors, sent, form } = await openAnswerForm(runId);
    await form.getByText('how should the run continue?').waitFor({ timeout: 10_000 });
    const asked = await questionSeq(runId);
    // The form says what each answer does: plain text would not skip.
    await expect(form.innerText()).resolves.toMatch(/skip/i);
    await shot(page, 'ask-user-form');
    await form.getByRole('button', { name: 'Skip step' }).click({ timeout: 5_000 });
    await page.waitForSelector('[data-step-id="f"][data-status="skipped"]', { timeout: 15_000 });
    await waitForStatus(runId, 'completed');
    expect(sent.map((s) => JSON.parse(s) as unknown)).toEqual([
      { input: { action: 'skip' }, step_id: 'f', question_seq: asked },
    ]);
    const steps = (await api('GET', `/v1/runs/${runId}`)).steps as Record<string, Json>;
    // Skipped, not retried: one attempt.
    expect(steps.f).toMatchObject({ status: 'skipped', attempts: 1 });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('says so when its answer to a failed step’s question arrives after someone else’s retry asked again', async () => {
    const runId = await startRun(
      { goal: 'ask twice', steps: [{ id: 'f', action: 'demo.flaky', parameters: { fail_times: 99 } }] },
      { on_step_failure: 'replan', revision_strategy: 'ask_user', retry_failed_steps: 0 },
    );
    const { page, errors, sent, form } = await openAnswerForm(runId);
    await form.getByText('how should the run continue?').waitFor({ timeout: 10_000 });
    const first = await questionSeq(runId);
    // This page's Skip is slow: before it arrives, Ada retries elsewhere, and the step fails and asks again.
    await page.route('**/input', async (route) => {
      await api('POST', `/v1/runs/${runId}/input`, {
        input: { action: 'retry' },
        step_id: 'f',
        question_seq: first,
        approver: 'Ada',
      });
      await waitForStatus(runId, 'awaiting_input');
      await route.continue();
    });
    await form.getByRole('button', { name: 'Skip step' }).click({ timeout: 5_000 });
    const said = page.getByText(/was answered already by Ada \(retry: retry it\)/);
    await said.waitFor({ timeout: 15_000 });
    await expect(said.innerText()).resolves.toMatch(/step "f" asks again, as question \d+/);
    await shot(page, 'answer-question-closed');
    expect(sent.map((b) => (JSON.parse(b) as Json).question_seq)).toEqual([first]);
    // The skip was not taken: the step was retried (Ada's answer) and asks again.
    const run = await api('GET', `/v1/runs/${runId}`);
    expect(run.status).toBe('awaiting_input');
    expect((run.steps as Record<string, Json>).f).toMatchObject({ attempts: 2 });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows a rejection’s comment and says rejected; a cancellation’s reason is not drawn as a failure', async () => {
    const rejected = await startRun(
      { goal: 'reject me', steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] },
      { require_plan_approval: true },
    );
    await waitForStatus(rejected, 'awaiting_approval');
    await api('POST', `/v1/runs/${rejected}/approval`, {
      decision: 'reject',
      comment: 'Too risky: it writes to production',
    });
    await waitForStatus(rejected, 'cancelled');
    const { page, errors } = await open(`/#/runs/${rejected}`);
    const outcome = page.locator('[data-outcome]');
    await outcome.waitFor({ timeout: 10_000 });
    await expect(outcome.getAttribute('data-outcome')).resolves.toBe('rejected');
    await expect(outcome.innerText()).resolves.toMatch(/rejected[\s\S]*Too risky: it writes to production/);
    await expect(page.locator('.toolbar .badge').innerText()).resolves.toBe('rejected');
    // The API's status is still cancelled: the page tells a rejection apart by its events.
    await expect(page.locator('[data-run-status]').getAttribute('data-run-status')).resolves.toBe(
      'cancelled',
    );
    expect(await colourOf(outcome)).not.toBe(FAIL);
    await shot(page, 'run-rejected-comment');

    const cancelled = await startRun({
      goal: 'cancel me',
      steps: [{ id: 'wait', action: 'human.input', parameters: { prompt: 'Anyone?' } }],
    });
    await waitForStatus(cancelled, 'awaiting_input');
    await api('POST', `/v1/runs/${cancelled}/cancel`, { reason: 'no longer needed' });
    await waitForStatus(cancelled, 'cancelled');
    await page.goto(`${env.server.base}/#/runs/${cancelled}`);
    const reason = page.locator('[data-outcome="cancelled"]');
    await reason.waitFor({ timeout: 10_000 });
    await expect(reason.innerText()).resolves.toMatch(/no longer needed/);
    expect(await colourOf(reason)).not.toBe(FAIL);
    await expect(page.locator('.error', { hasText: 'no longer needed' }).count()).resolves.toBe(0);
    await expect(page.locator('.toolbar .badge').innerText()).resolves.toBe('cancelled');
    await shot(page, 'run-cancelled-reason');

    // The API and the runs list tell them apart too (termination_reason, in the D1 index).
    expect((await api('GET', `/v1/runs/${rejected}`)).termination_reason).toBe('plan_rejected');
    expect((await api('GET', `/v1/runs/${cancelled}`)).termination_reason).toBe('no longer needed');
    await page.goto(`${env.server.base}/#/`);
    const badge = (id: string) => page.locator(`tr[data-run-id="${id}"] .badge`);
    await badge(cancelled).waitFor({ timeout: 10_000 });
    await expect(badge(rejected).innerText()).resolves.toBe('rejected');
    await expect(badge(cancelled).innerText()).resolves.toBe('cancelled');
    await expect(badge(cancelled).getAttribute('title')).resolves.toBe('no longer needed');
    await shot(page, 'runs-rejected-and-cancelled');
    // The status filter agrees with the badges: "rejected" lists the rejected run, "cancelled" does not.
    await page.selectOption('.toolbar select', 'rejected');
    await badge(rejected).waitFor({ timeout: 10_000 });
    await expect(badge(cancelled).count()).resolves.toBe(0);
    await page.selectOption('.toolbar select', 'cancelled');
    await badge(cancelled).waitFor({ timeout: 10_000 });
    await expect(badge(rejected).count()).resolves.toBe(0);
    const badges = await page.locator('table.runs .badge').allInnerTexts();
    expect(new Set(badges)).toEqual(new Set(['cancelled']));
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('draws every status badge and status word at 4.5:1 contrast or more, light and dark', async () => {
    const failed = await startRun(
      {
        goal: 'fails',
        steps: [
          { id: 'f', action: 'demo.flaky', parameters: { fail_times: 5 } },
          { id: 'after', action: 'demo.echo', parameters: { v: 1 }, dependencies: ['f'] },
        ],
      },
      { retry_failed_steps: 0 },
    );
    const waiting = await startRun(
      { goal: 'waits', steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] },
      { require_plan_approval: true },
    );
    const cancelled = await startRun(askThenUse('cancelled'));
    const rejected = await startRun(
      { goal: 'rejected', steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] },
      { require_plan_approval: true },
    );
    const done = await startRun({ goal: 'done', steps: [{ id: 'a', action: 'demo.echo' }] });
    await waitForStatus(cancelled, 'awaiting_input');
    await api('POST', `/v1/runs/${cancelled}/cancel`, { reason: 'test' });
    await waitForStatus(rejected, 'awaiting_approval');
    await api('POST', `/v1/runs/${rejected}/approval`, { decision: 'reject' });
    await Promise.all([
      waitForStatus(failed, 'failed'),
      waitForStatus(waiting, 'awaiting_approval'),
      waitForStatus(cancelled, 'cancelled'),
      waitForStatus(rejected, 'cancelled'),
      waitForStatus(done, 'completed'),
    ]);
    const { page, errors } = await open('/#/');
    /** Texts below 4.5:1 against the background they are drawn on (the nearest opaque one). */
    const faint = () =>
      page.evaluate(() => {
        const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
        const lum = (c: number[]) =>
          c
            .slice(0, 3)
            .map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4))
            .reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i]!, 0);
        const background = (el: Element | null): number[] => {
          for (; el; el = el.parentElement) {
            const c = rgb(getComputedStyle(el).backgroundColor);
            if (c.length === 3 || (c[3] ?? 0) > 0) return c;
          }
          return [255, 255, 255];
        };
        return [...document.querySelectorAll('.badge, .error, .ok, button.danger, .findings li')].flatMap(
          (el) => {
            const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(background(el))];
            const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
            return ratio < 4.5 ? [`${(el as HTMLElement).innerText.slice(0, 40)}: ${ratio.toFixed(2)}`] : [];
          },
        );
      });
    const seen: Record<string, string[]> = {};
    const look = async (name: string, ready: string, click?: string) => {
      if (click) await page.locator(click).first().click({ timeout: 10_000 });
      await page.locator(ready).first().waitFor({ timeout: 10_000 });
      seen[name] = await faint();
    };
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`${env.server.base}/#/`);
      await look(`${scheme} runs`, `tr[data-run-id="${done}"] .badge`);
      await page.goto(`${env.server.base}/#/runs/${failed}`);
      await look(`${scheme} failed run`, '.step-panel .badge.status-failed', '[data-step-id="f"]');
      await look(`${scheme} skipped step`, '.step-panel .badge.status-skipped', '[data-step-id="after"]');
      await page.goto(`${env.server.base}/#/runs/${waiting}`);
      await look(`${scheme} pending step`, '.step-panel .badge.status-pending', '[data-step-id="a"]');
      await page.goto(`${env.server.base}/#/new`);
      await look(`${scheme} new run`, '.plan-editor .ok');
      await page
        .locator('.plan-editor textarea')
        .fill('{"goal": "g", "steps": [{"id": "a", "action": "no.such"}]}');
      await look(`${scheme} findings`, '.plan-editor .findings li');
      await page.goto(`${env.server.base}/#/runs/${failed}`);
      await look(`${scheme} failed run outcome`, 'main .error');
      await shot(page, `contrast-${scheme}`);
    }
    expect(Object.entries(seen).filter(([, bad]) => bad.length)).toEqual([]);
    expect(Object.keys(seen)).toHaveLength(14);
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('shows a new run’s config or input that does not parse or fit in the page’s alert, and sends nothing', async () => {
    const { page, errors } = await open('/#/new');
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/v1/runs')) posts.push(r.postData() ?? '');
    });
    const alert = page.locator('main [role="alert"]');
    for (const [field, text, says] of [
      ['Config (JSON)', '[1]', 'Config: expected a JSON object ({ … })'],
      ['Config (JSON)', '{"execution_mode": ', 'Config is not JSON: '],
      ['Input (JSON, optional)', '{city: Oslo}', 'Input is not JSON: '],
    ] as const) {
      if (field === 'Input (JSON, optional)') await page.getByLabel('Config (JSON)').fill('{}');
      await page.getByLabel(field).fill(text);
      await page.getByRole('button', { name: 'Start run' }).click();
      await page.waitForFunction(
        (s) => document.querySelector('main [role="alert"]')?.textContent?.includes(s),
        says,
        { timeout: 10_000 },
      );
      await expect(alert.count()).resolves.toBe(1);
    }
    expect(posts).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('starts one run however often Start run is clicked', async () => {
    const { page, errors } = await open('/#/new');
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/v1/runs')) posts.push(r.postData() ?? '');
    });
    await page.getByLabel('Config (JSON)').fill('{}');
    await page.getByRole('button', { name: 'Start run' }).dblclick();
    await page.waitForURL(/#\/runs\/run_/, { timeout: 15_000 });
    // A moment for a second request, had there been one.
    await page.waitForTimeout(500);
    expect(posts).toHaveLength(1);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows approval data it cannot read in the page’s alert, not a blank page', async () => {
    const page = await env.browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // The approval page's shell (src/http/app-shell.ts) with data another release might have written.
    const data = { approval: { run_id: 'run_x', goal: 'g', plan: { steps: [] }, estimates: {}, token: 't' } };
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Approve</title>
<link rel="stylesheet" href="/app/app.css"></head><body><div id="app"></div>
<script type="application/json" id="edgeplan-data">${JSON.stringify(data)}</script>
<script type="module" src="/app/app.js"></script></body></html>`;
    const url = `${env.server.base}/v1/runs/run_x/approval-unreadable`;
    await page.route(url, (route) => route.fulfill({ contentType: 'text/html', body: html }));
    await page.goto(url);
    const alert = page.getByRole('alert');
    await alert.waitFor({ timeout: 10_000 });
    expect(await alert.textContent()).toBe(
      "The page's approval data at expires_at: must be a number. Reload the link, or decide from the dashboard.",
    );
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows earlier events than the last 500, and any event’s payload in full', async () => {
    const long = 'x'.repeat(300) + '-the-end';
    const steps = Array.from({ length: 200 }, (_, i) => ({
      id: `s${i}`,
      action: 'demo.echo',
      parameters: i === 0 ? { value: long } : { i },
    }));
    const runId = await startRun(
      { goal: 'many events', steps },
      { max_steps: 200, execution_mode: 'parallel' },
    );
    await waitForStatus(runId, 'completed');
    const total = ((await api('GET', `/v1/runs/${runId}/events?limit=1000`)).events as Json[]).length;
    expect(total).toBeGreaterThan(500);
    const { page, errors } = await open(`/#/runs/${runId}/events`);
    const rows = page.locator('ol.events > li');
    await page.waitForFunction(
      (n) => document.querySelector('.event-log .filters')?.textContent?.includes(`of ${n} events`),
      total,
      { timeout: 15_000 },
    );
    await expect(rows.count()).resolves.toBe(500);
    await page.getByRole('button', { name: /earlier events/ }).click({ timeout: 5_000 });
    await expect(rows.count()).resolves.toBe(Math.min(total, 1000));
    await expect(rows.first().locator('.type').innerText()).resolves.toBe('RunCreated');
    // Its time is the event's, in UTC, and the log says so (the reader's clock may be anywhere).
    const created = ((await api('GET', `/v1/runs/${runId}/events?limit=1`)).events as Json[])[0]!;
    const time = rows.first().locator('time');
    await expect(time.getAttribute('datetime')).resolves.toBe(created.timestamp);
    await expect(time.innerText()).resolves.toBe(String(created.timestamp).slice(11, 23));
    await expect(page.locator('.event-log .filters').innerText()).resolves.toContain('times UTC');

    // The step with the long parameter: its ToolInvoked is cut in the row, whole once expanded.
    await page.selectOption('.event-log select >> nth=0', 'ToolInvoked');
    await page.selectOption('.event-log select >> nth=1', 's0');
    const row = rows.first();
    await expect(row.locator('.payload').innerText()).resolves.not.toContain('-the-end');
    await row.getByRole('button', { name: /in full/ }).click({ timeout: 5_000 });
    const full = row.locator('pre');
    await expect(full.innerText()).resolves.toContain(`${long}"`);
    expect(JSON.parse(await full.innerText())).toMatchObject({
      event_type: 'ToolInvoked',
      payload: { step_id: 's0', parameters: { value: long } },
    });
    await shot(page, 'events-expanded');
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('draws the start of a huge event, output or final output, and offers the whole as a download', async () => {
    // A step's output may take up to 16 MiB (config.max_output_bytes): drawn whole, one froze the page.
    const huge = 'h'.repeat(2_500_000) + '-huge-end';
    const runId = await startRun(
      { goal: 'a large output', steps: [{ id: 'huge', action: 'demo.echo', parameters: { value: huge } }] },
      { max_output_bytes: 4_000_000 },
    );
    await waitForStatus(runId, 'completed');
    const { page, errors } = await open(`/#/runs/${runId}/events`);
    await page.selectOption('.event-log select >> nth=0', 'ToolReturned', { timeout: 10_000 });
    const row = page.locator('ol.events > li').first();
    await row.getByRole('button', { name: /in full/ }).click({ timeout: 5_000 });
    const download = row.getByRole('link', { name: 'Download the whole' });
    await download.waitFor({ timeout: 10_000 });
    await expect(row.innerText()).resolves.toMatch(/The first 2,000,000 of [\d,]+ characters/);
    const drawn = await row.locator('pre.full').innerText();
    expect(drawn.length).toBeLessThan(2_100_000);
    expect(drawn).not.toContain('-huge-end');
    const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
    expect(file.suggestedFilename()).toMatch(/^event-\d+\.json$/);
    const whole = readFileSync(await file.path(), 'utf8');
    expect(JSON.parse(whole)).toMatchObject({
      event_type: 'ToolReturned',
      payload: { step_id: 'huge', output: { value: huge } },
    });
    await shot(page, 'events-huge');
    // The step's output and the run's final output: the same start and download.
    await page.goto(`${env.server.base}/#/runs/${runId}`);
    // Once the page has read the step's attempt: before, its panel shows the parameters as planned.
    await page.locator('[data-step-id="huge"][data-status="completed"]').first().click({ timeout: 10_000 });
    const panel = page.getByRole('complementary', { name: 'Step huge' });
    const downloads = panel.getByRole('link', { name: 'Download the whole' });
    await downloads.first().waitFor({ timeout: 5_000 });
    const names = await downloads.evaluateAll((as) => as.map((a) => a.getAttribute('download')));
    expect(names).toEqual(['huge-inputs.json', 'huge-output.json']);
    const final = page.locator('details.final');
    await final.locator('summary').click();
    await expect(final.getByRole('link', { name: 'Download the whole' }).count()).resolves.toBe(1);
    await expect(final.locator('pre').innerText()).resolves.not.toContain('-huge-end');
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('says no run matches an empty status filter, and clears it', async () => {
    await startRun({ goal: 'one run', steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] });
    const { page, errors } = await open('/#/');
    await page.waitForSelector('table.runs tbody tr');
    await expect(page.getByRole('columnheader', { name: 'Created (UTC)' }).count()).resolves.toBe(1);
    await page.selectOption('.toolbar select', 'aborted');
    const empty = page.getByText(/No runs with status .aborted./);
    await empty.waitFor({ timeout: 10_000 });
    await expect(page.getByText('No runs yet').count()).resolves.toBe(0);
    await expect(page.locator('table.runs').count()).resolves.toBe(0);
    await shot(page, 'runs-empty-filter');
    await page.getByRole('button', { name: 'Show all runs' }).click({ timeout: 5_000 });
    await page.waitForSelector('table.runs tbody tr');
    await expect(page.locator('.toolbar select').inputValue()).resolves.toBe('');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('finds a rejected run behind a page of cancelled ones, and says "Loading runs…" until the list comes', async () => {
    const rejected = await startRun(
      { goal: 'rejected behind many', steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] },
      { require_plan_approval: true },
    );
    await waitForStatus(rejected, 'awaiting_approval');
    await api('POST', `/v1/runs/${rejected}/approval`, { decision: 'reject', comment: 'no' });
    // More cancelled runs after it than the list reads a page (50): a filter that read a page of
    // cancelled runs and kept the rejected ones would find none (the API finds rejected runs itself).
    for (let i = 0; i < 55; i++) {
      const id = await startRun({ steps: [{ id: 's', action: 'demo.sleep', parameters: { ms: 30_000 } }] });
      await api('POST', `/v1/runs/${id}/cancel`, {});
    }
    const page = await env.browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // The list held back, as on a slow link: the page says it is loading, not nothing.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/v1/runs?*', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${env.server.base}/#/`);
    const loading = page.getByRole('status').filter({ hasText: 'Loading runs…' });
    await loading.waitFor();
    release();
    await page.waitForSelector('table.runs tbody tr');
    await expect(loading.count()).resolves.toBe(0);
    await page.selectOption('.toolbar select', 'rejected');
    await page.locator(`[data-run-id="${rejected}"]`).waitFor({ timeout: 15_000 });
    await expect(page.getByText(/No runs with status/).count()).resolves.toBe(0);
    const badges = await page.locator('table.runs tbody .badge').allInnerTexts();
    expect(badges.length).toBeGreaterThan(0);
    expect(badges.every((b) => b === 'rejected')).toBe(true);
    await shot(page, 'runs-rejected-filter');
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);
});
