/**
 * A revision awaiting its approval, decided through the OLD release's Worker while the run's object
 * is on THIS release (scripts/rollout-rehearsal.mjs, reverse's side phase): during a rollout a
 * request routed to the new version creates a run with `approval.revisions: "ask"` (the feeder hands
 * `/__rehearsal/new/…` to this release's Worker, rollout/feeder.mjs), and the requests that follow
 * are routed to the old version. Through the old Worker: v1 approved; the planner's v2 (v1's step
 * failed) waits for approval; then one run's v2 is approved by the API, one rejected on the v2
 * link's page in chromium (the old release's page, reading this release's object), and one edited
 * (`modify`). Each ends as decided, no version runs unasked, no step twice.
 *
 * @example
 * await revisionsThroughOldWorker(ctx, llm, hooks); // the feeder, the old front, this release's objects
 */
import { launchChromium } from '../../test/e2e/chromium.ts';
import { ENDED } from './runs.mjs';

export async function revisionsThroughOldWorker({ api, runs, tag, base }, llm, hooks) {
  const { call, check, until } = api;
  const step = (id, action, parameters, deps = []) => ({ id, action, parameters, dependencies: deps });
  const counter = (run, id) => step(id, 'demo.counter', { key: `${tag}-rv-${run}-${id}` });
  const broken = (id) => step(id, 'demo.flaky', { fail_times: 99, permanent: true }, ['a']);
  const ids = {};
  for (const name of ['approve', 'reject', 'modify']) {
    const script = `${tag}-rv-${name}`;
    llm.script(script, [
      JSON.stringify({ steps: [counter(name, 'a'), broken(`${name}1`)] }),
      JSON.stringify({ steps: [counter(name, 'a'), step(`${name}2`, 'demo.echo', { v: 2 }, ['a'])] }),
    ]);
    const created = await call('POST', '/__rehearsal/new/v1/runs', {
      goal: `count, then a step (${script})`,
      config: {
        execution_mode: 'sequential',
        require_plan_approval: true,
        approval: { webhook_url: hooks.url, revisions: 'ask', timeout_s: 3600 },
      },
    });
    ids[name] = created.body.run_id;
  }
  const v = async (id) => (await call('GET', `/v1/runs/${id}`)).body;
  for (const id of Object.values(ids)) {
    await until(
      `run ${id}`,
      () => v(id),
      (r) => r.status === 'awaiting_approval',
    );
    await call('POST', `/v1/runs/${id}/approval`, { decision: 'approve', comment: 'v1 ok' });
  }
  const waiting = [];
  for (const id of Object.values(ids))
    waiting.push(
      await until(
        `run ${id} at v2`,
        () => v(id),
        (r) => r.status === 'awaiting_approval' && r.plan_version === 2,
      ),
    );
  check(
    'reverse revisions: created by this release’s Worker, v1 approved through the old one; each waits for v2’s approval',
    waiting.length === 3,
    waiting.map((r) => `${r.status} v${r.plan_version}`).join(', '),
  );

  const approved = await call('POST', `/v1/runs/${ids.approve}/approval`, {
    decision: 'approve',
    comment: 'v2 ok',
  });
  const a = await runs.reaches(ids.approve, ENDED);
  check(
    'reverse revisions: v2 approved through the old Worker; it runs and completes',
    approved.status === 200 && a.status === 'completed' && a.step_results?.approve2?.v === 2,
    `${approved.status} ${a.status} ${JSON.stringify(a.step_results).slice(0, 200)}`,
  );

  const delivery = await until(
    'the v2 approval webhook',
    async () => hooks.deliveries.find((d) => d.run_id === ids.reject && d.plan_version === 2),
    (d) => d !== undefined,
  );
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // What the page met, said should it draw no Reject (a request the page aborts itself is no fault).
    const met = [];
    page.on('console', (m) => m.type() === 'error' && met.push(`console: ${m.text()}`));
    page.on('response', (r) => r.status() >= 400 && met.push(`${r.status()} ${r.url()}`));
    // The dashboard itself through the feeder, as a control: its page draws.
    await page.goto(`${base()}/#/runs/${ids.approve}`);
    // The page replays the run's events first (planning, awaiting approval, …): its status once drawn.
    const control = await page
      .locator('[data-run-status="completed"]')
      .waitFor({ timeout: 15_000 })
      .then(() => 'completed')
      .catch(
        async () =>
          `${await page
            .locator('[data-run-status]')
            .getAttribute('data-run-status')
            .catch(() => 'none')}`,
      );
    check(
      'reverse revisions: the old Worker’s dashboard shows the run it approved (its page and assets served)',
      control === 'completed',
      String(control),
    );
    const link = new URL(delivery.approval_url);
    await page.goto(`${base()}${link.pathname}${link.search}`);
    const reject = page.getByRole('button', { name: 'Reject', exact: true });
    await reject.waitFor({ timeout: 15_000 }).catch(() => {});
    const shown = await page.locator('body').innerText();
    await page.screenshot({
      path: 'test-results/screenshots/rollout-old-approval-page-v2.png',
      fullPage: true,
    });
    if (await reject.isVisible()) await reject.click();
    else
      console.log(
        `     reverse revisions: no Reject on the page: ${met.join(' | ')} ${(await page.content()).slice(0, 600)}`,
      );
    const r = await runs.reaches(ids.reject, ENDED).catch(async () => v(ids.reject));
    check(
      'reverse revisions: v2’s link opened on the old Worker’s page (its plan shown) and rejected there; cancelled plan_rejected',
      shown.includes('reject2') &&
        r.status === 'cancelled' &&
        r.termination_reason === 'plan_rejected' &&
        errors.length === 0,
      `${r.status} ${r.termination_reason} ${errors.join(' | ')} ${JSON.stringify(shown.slice(0, 300))}`,
    );
  } finally {
    await browser.close();
  }

  const modified = await call('POST', `/v1/runs/${ids.modify}/approval`, {
    decision: 'modify',
    plan: { steps: [counter('modify', 'a'), step('fixed', 'demo.echo', { edited: true }, ['a'])] },
    comment: 'edited through the old Worker',
  });
  const m = await runs.reaches(ids.modify, ENDED);
  check(
    'reverse revisions: v2 edited through the old Worker; the edit runs, its counter counted once',
    modified.status === 200 &&
      m.status === 'completed' &&
      m.step_results?.fixed?.edited === true &&
      m.step_results?.a?.value === 1,
    `${modified.status} ${m.status} ${JSON.stringify(m.step_results).slice(0, 200)}`,
  );

  for (const [name, id] of Object.entries(ids)) {
    const events = (await call('GET', `/v1/runs/${id}/events?limit=1000`)).body.events ?? [];
    const asked = events
      .filter((e) => e.event_type === 'ApprovalRequested')
      .map((e) => e.payload.plan_version);
    const written = events.filter((e) => e.event_type === 'PlanUpdated').map((e) => e.payload.plan.version);
    const invoked = events
      .filter((e) => e.event_type === 'ToolInvoked')
      .map((e) => `${e.payload.step_id}#${e.payload.attempt}`);
    const edit = name === 'modify' ? String(m.plan_version) : '';
    check(
      `reverse revisions (${name}): asked for v1 and v2, no other version but the edit, no attempt twice`,
      asked.join() === '1,2' &&
        written.filter((x) => !asked.includes(x)).join() === edit &&
        invoked.length === new Set(invoked).size,
      `asked ${asked.join()} written ${written.join()} invoked ${invoked.join(' ')}`,
    );
  }
}
