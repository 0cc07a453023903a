/**
 * What the dashboard tells a person who was not watching, in chromium against `wrangler dev` with a
 * scripted LLM: a step a revision replaced stays in the graph's "Replaced by a later plan version"
 * (status, attempts, the version that replaced it and why; clickable for its attempts and error) and
 * in the timeline (its row, its failed bars, the new version marked), while the graph is the plan that
 * runs; two revisions in a row keep both; who approved, with the comment, and what the edit changed;
 * a step running when the run was cancelled is interrupted, not spinning; a fallback that ran says
 * so; a retried step says which attempt of its retry it is on; an iterative run its max_steps stopped
 * says so; the event log says in words why the plan changed; an approved run says how long it ran
 * and, apart, how long it waited for the approval. Screenshots go to
 * test-results/screenshots/ (out of the repository).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/client';
import { runTimeOf, runTimeText } from '../../src/client/run-time';
import { seriousViolations } from './axe';
import { dashboardSetup } from './dashboard-setup';
import { plannerVars, startScriptedLlm } from './scripted-llm-server';
import { describedEcho as echo } from '../fixtures/echo-steps';

let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
// The scripted endpoint first: the dev server is pointed at it.
beforeAll(async () => {
  llm = await startScriptedLlm();
});
afterAll(async () => {
  await llm?.close();
});
const { env, api, waitForStatus, open, shot } = dashboardSetup('dashboard-history-e2e', {
  extraArgs: () => plannerVars(llm.url),
});

const flaky = (id: string, key: string, deps: string[] = []) => ({
  id,
  description: `flaky ${id}`,
  action: 'demo.flaky',
  parameters: { fail_times: 50, key },
  dependencies: deps,
});

describe('the dashboard keeps a run’s history in view', () => {
  it('shows a step a revision replaced in the graph and the timeline, with its attempts, error and why', async () => {
    llm.script('history-revised', [
      JSON.stringify({ steps: [flaky('fetch', 'history-revised'), echo('use', ['fetch'])] }),
      JSON.stringify({ steps: [echo('fetch_mirror'), echo('use', ['fetch_mirror'])] }),
    ]);
    const { run_id } = (await api('POST', '/v1/runs', {
      goal: 'history-revised: fetch and use',
      config: { retry_failed_steps: 1, retry_delay: 0.05 },
    })) as { run_id: string };
    await waitForStatus(run_id, 'completed');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    // The graph is the plan that runs: v2's steps, and no node for the replaced one.
    await page.waitForSelector('svg.dag [data-step-id="fetch_mirror"][data-status="completed"]');
    await expect(page.locator('svg.dag [data-step-id="fetch"]').count()).resolves.toBe(0);
    const card = page.locator('[data-replaced-step="fetch"]');
    await expect(card.getAttribute('data-status')).resolves.toBe('failed');
    await expect(card.getAttribute('data-plan-version')).resolves.toBe('1');
    await expect(card.getAttribute('data-replaced-by')).resolves.toBe('2');
    await expect(card.innerText()).resolves.toMatch(
      /fetch[\s\S]*failed[\s\S]*2 attempts[\s\S]*v1, removed by v2 \(revision\): step "fetch" failed/,
    );
    await card.click();
    const panel = page.getByRole('complementary', { name: 'Step fetch, replaced (plan v1)' });
    await expect(panel.locator('.replaced-note').innerText()).resolves.toMatch(
      /Not in the current plan: v1, removed by v2 \(revision\)/,
    );
    await expect(panel.locator('table.attempts tbody tr').count()).resolves.toBe(2);
    await expect(panel.locator('table.attempts').innerText()).resolves.toMatch(/demo_flaky[\s\S]*demo_flaky/);
    // No Retry for a step the plan no longer has.
    await expect(panel.getByRole('button', { name: /Retry/ }).count()).resolves.toBe(0);
    await shot(page, 'history-replaced-graph');

    await page.getByRole('tab', { name: 'Timeline' }).click();
    const row = page.locator('.tl-row[data-replaced="true"][data-step-id="fetch"]');
    await row.waitFor();
    await expect(row.locator('.tl-bar.failed').count()).resolves.toBe(2);
    await expect(row.locator('.tl-note').innerText()).resolves.toMatch(
      /replaced: v1, removed by v2 \(revision\)/,
    );
    await expect(page.locator('.tl-versions .tl-mark[data-plan-version="2"]').count()).resolves.toBe(1);
    await expect(
      page.locator('.tl-row:not(.replaced)[data-step-id="fetch_mirror"] .tl-bar.ok').count(),
    ).resolves.toBe(1);
    await shot(page, 'history-replaced-timeline');

    // The event log says why in words before the JSON: the revision's trigger and reason, the new version.
    await page.getByRole('tab', { name: 'Events' }).click();
    await expect(
      page.locator('li[data-event-type="RevisionRequested"] .summary').innerText(),
    ).resolves.toMatch(/^step_failure → replan_remaining: step "fetch" failed/);
    await expect(page.locator('li[data-event-type="PlanUpdated"] .summary').innerText()).resolves.toMatch(
      /^2 steps \(v2, revision\): step "fetch" failed/,
    );
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('keeps both failures of two revisions in a row; the step run again links its earlier incarnations', async () => {
    llm.script('history-twice', [
      JSON.stringify({ steps: [flaky('fetch', 'history-twice-1'), echo('use', ['fetch'])] }),
      JSON.stringify({ steps: [flaky('fetch', 'history-twice-2'), echo('use', ['fetch'])] }),
      JSON.stringify({ steps: [echo('fetch'), echo('use', ['fetch'])] }),
    ]);
    const { run_id } = (await api('POST', '/v1/runs', {
      goal: 'history-twice: fetch and use',
      config: { retry_failed_steps: 0 },
    })) as { run_id: string };
    await waitForStatus(run_id, 'completed');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    await page.waitForSelector('svg.dag [data-step-id="fetch"][data-status="completed"]');
    const cards = page.locator('[data-replaced-step="fetch"]');
    await expect(cards.count()).resolves.toBe(2);
    await expect(cards.nth(0).innerText()).resolves.toMatch(/failed[\s\S]*v1, run again in v2 \(revision\)/);
    await expect(cards.nth(1).innerText()).resolves.toMatch(/failed[\s\S]*v2, run again in v3 \(revision\)/);
    // The step as it runs now: its own attempt, a note of the version that changed it, and links to
    // what it did before.
    await page.locator('svg.dag [data-step-id="fetch"]').click();
    const panel = page.getByRole('complementary', { name: 'Step fetch' });
    await expect(panel.locator('table.attempts tbody tr').count()).resolves.toBe(1);
    await expect(panel.locator('.changed-in').allInnerTexts()).resolves.toEqual([
      expect.stringMatching(/^Changed in plan v2 \(a revision\): step "fetch" failed/),
      expect.stringMatching(/^Changed in plan v3 \(a revision\): step "fetch" failed/),
    ]);
    await expect(panel.locator('[data-earlier]').allInnerTexts()).resolves.toEqual([
      'v1: failed, 1 attempt',
      'v2: failed, 1 attempt',
    ]);
    await panel.locator('[data-earlier]').first().click();
    await expect(cards.nth(0).getAttribute('aria-pressed')).resolves.toBe('true');
    await shot(page, 'history-two-revisions-graph');
    await page.getByRole('tab', { name: 'Timeline' }).click();
    await page.locator('.tl-row[data-replaced="true"]').first().waitFor();
    await expect(
      page
        .locator('.tl-row[data-step-id="fetch"] .tl-bar')
        .evaluateAll((bars) => bars.map((b) => b.className)),
    ).resolves.toEqual(['tl-bar failed', 'tl-bar failed', 'tl-bar ok']);
    await expect(page.locator('.tl-mark').allInnerTexts()).resolves.toEqual(['v2', 'v3']);
    await shot(page, 'history-two-revisions-timeline');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('says who approved, with the comment, and what the edit changed; the removed step never ran', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: {
        goal: 'approve with an edit',
        steps: [
          { id: 'a', action: 'demo.echo', parameters: { v: 1 } },
          { id: 'risky', action: 'demo.echo', parameters: { v: 'prod' } },
        ],
      },
      config: { require_plan_approval: true },
    })) as { run_id: string };
    const waiting = await waitForStatus(run_id, 'awaiting_approval');
    const plan = waiting.plan as { steps: { id: string }[] };
    await api('POST', `/v1/runs/${run_id}/approval`, {
      decision: 'modify',
      plan: { ...plan, steps: [{ ...plan.steps[0], parameters: { v: 2 } }] },
      comment: 'no production step',
    });
    await waitForStatus(run_id, 'completed');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    const note = page.locator('.approval-note');
    await note.waitFor();
    await expect(note.innerText()).resolves.toBe(
      'Plan approved through the API without a token: no production step · edited into v2: changed a; removed risky',
    );
    const risky = page.locator('[data-replaced-step="risky"]');
    await expect(risky.innerText()).resolves.toMatch(
      /not run[\s\S]*v1, removed by v2 \(approver’s edit\): no production step/,
    );
    await page.locator('svg.dag [data-step-id="a"]').click();
    await expect(page.locator('.step-panel .changed-in').innerText()).resolves.toBe(
      'Changed in plan v2 (the approver’s edit): no production step',
    );
    await shot(page, 'history-approval-edit');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('says how long an approved run ran, and apart from that how long it waited for the approval', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: { goal: 'approve, then run', steps: [echo('a'), echo('b', ['a'])] },
      config: { require_plan_approval: true },
    })) as { run_id: string };
    await waitForStatus(run_id, 'awaiting_approval');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    // Approved from the page: the run waited from its ApprovalRequested until this click.
    await page.getByRole('button', { name: 'Approve' }).click({ timeout: 15_000 });
    await page.waitForSelector('[data-run-status="completed"]', { timeout: 15_000 });
    await waitForStatus(run_id, 'completed');
    const spent = page.locator('[data-run-time]');
    await expect(spent.innerText()).resolves.toMatch(
      /^\d+(\.\d)? (ms|s) running · waited \d+(\.\d)? (ms|s)( \d+ s)? for approval$/,
    );
    // The same split as the run's events give it (ended: the time now changes nothing).
    const { events } = (await api('GET', `/v1/runs/${run_id}/events`)) as { events: RunEvent[] };
    await expect(spent.innerText()).resolves.toBe(runTimeText(runTimeOf(events, 0)));
    await shot(page, 'history-run-time');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('says in a step’s panel that its fallback ran, as which attempt, and marks that attempt', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: {
        goal: 'fall back',
        steps: [
          {
            id: 'primary',
            action: 'demo.flaky',
            parameters: { fail_times: 50, key: 'history-fallback' },
            fallback_action: { action: 'demo.echo', parameters: { from: 'fallback' } },
          },
        ],
      },
      config: { retry_failed_steps: 1, retry_delay: 0.05 },
    })) as { run_id: string };
    await waitForStatus(run_id, 'completed');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    await page.locator('svg.dag [data-step-id="primary"][data-status="completed"]').click();
    const ran = page.locator('.step-panel [data-fallback-ran]');
    await expect(ran.getAttribute('data-fallback-ran')).resolves.toBe('ok');
    await expect(ran.innerText()).resolves.toMatch(/^\s*— ran as attempt 3, ok$/);
    await expect(page.locator('.step-panel table.attempts tbody tr').nth(2).innerText()).resolves.toMatch(
      /demo\.echo \(fallback\)/,
    );
    await shot(page, 'history-fallback');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('says which attempt of a retry a step run again is on, not only its number over the run', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: {
        goal: 'retry a flaky step',
        steps: [
          {
            id: 'f',
            action: 'demo.flaky',
            parameters: { fail_times: 2, key: `history-round-${Date.now()}` },
          },
        ],
      },
      config: { retry_failed_steps: 1, retry_delay: 0.05 },
    })) as { run_id: string };
    await waitForStatus(run_id, 'failed');
    await api('POST', `/v1/runs/${run_id}/retry`, {});
    await waitForStatus(run_id, 'completed');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    // Read to its end: while it replays the past the node has the snapshot's colour and count (×3),
    // its rounds once the events that say them are read.
    await page.locator('main.run-page[aria-busy="false"]').waitFor();
    const node = page.locator('svg.dag [data-step-id="f"][data-status="completed"]');
    // The third attempt over the run is the retry's first of up to two.
    await expect(node.locator('[data-attempts]').getAttribute('data-attempts')).resolves.toBe('↻1/2');
    await expect(node.getAttribute('aria-label')).resolves.toBe(
      'f ↻1/2 demo.flaky: completed, attempt 1 of up to 2 in retry 1 (#3 of the step)',
    );
    await node.click();
    const panel = page.getByRole('complementary', { name: 'Step f' });
    await expect(panel.locator('.round').innerText()).resolves.toMatch(
      /^attempt 1 of up to 2 in retry 1 \(#3 of the step\) — attempts are numbered over the whole run$/,
    );
    await expect(
      panel.locator('table.attempts tbody tr').nth(2).locator('td').first().innerText(),
    ).resolves.toBe('3 (retry 1)');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('says an iterative run its max_steps stopped ended at that limit, not only that it completed', async () => {
    llm.script('history-limit', [
      JSON.stringify({ steps: [echo('first')] }),
      JSON.stringify({ steps: [echo('first'), echo('second', ['first'])] }),
    ]);
    const { run_id } = (await api('POST', '/v1/runs', {
      goal: 'history-limit: go on and on',
      config: { strategy: 'iterative', max_steps: 2 },
    })) as { run_id: string };
    await waitForStatus(run_id, 'completed');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    const outcome = page.locator('.outcome[data-outcome="limit"]');
    await outcome.waitFor();
    await expect(outcome.innerText()).resolves.toBe(
      'Stopped at a limit: Stopped after 1 turn: the plan has max_steps (2) steps, all completed, so another turn could add none; raise max_steps to let the model go on',
    );
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('draws a step that waited when the run was cancelled as interrupted, not running', async () => {
    const { run_id } = (await api('POST', '/v1/runs', {
      plan: {
        goal: 'cancel while it asks',
        steps: [{ id: 'wait', action: 'human.input', parameters: { prompt: 'Anyone?' } }],
      },
    })) as { run_id: string };
    await waitForStatus(run_id, 'awaiting_input');
    await api('POST', `/v1/runs/${run_id}/cancel`, { reason: 'nobody answers' });
    await waitForStatus(run_id, 'cancelled');
    const { page, errors } = await open(`/#/runs/${run_id}`);
    const node = page.locator('svg.dag [data-step-id="wait"]');
    await page.waitForSelector('svg.dag [data-step-id="wait"][data-status="interrupted"]');
    await node.click();
    const panel = page.getByRole('complementary', { name: 'Step wait' });
    await expect(panel.locator('.badge').innerText()).resolves.toBe('interrupted');
    // Counted as interrupted in the title, not as running (counts.interrupted).
    await expect(page.locator('.step-counts').innerText()).resolves.toMatch(
      /0\/1 steps completed · 1 interrupted/,
    );
    await expect(panel.locator('table.attempts').innerText()).resolves.toMatch(
      /no outcome: the run ended while it ran/,
    );
    await shot(page, 'history-cancelled-interrupted');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('has no serious axe violation with replaced steps shown, light and dark, desktop and phone', async () => {
    llm.script('history-a11y', [
      JSON.stringify({ steps: [flaky('fetch', 'history-a11y'), echo('use', ['fetch'])] }),
      JSON.stringify({ steps: [echo('fetch_mirror'), echo('use', ['fetch_mirror'])] }),
    ]);
    const { run_id } = (await api('POST', '/v1/runs', {
      goal: 'history-a11y: fetch and use',
      config: { retry_failed_steps: 0 },
    })) as { run_id: string };
    await waitForStatus(run_id, 'completed');
    const found: string[] = [];
    for (const viewport of [
      { width: 1400, height: 900 },
      { width: 390, height: 844 },
    ])
      for (const colorScheme of ['light', 'dark'] as const) {
        // bypassCSP: axe's source goes in as an inline script.
        const context = await env.browser.newContext({ viewport, colorScheme, bypassCSP: true });
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(`${env.server.base}/#/runs/${run_id}`);
        await page.locator('[data-replaced-step="fetch"]').click({ timeout: 15_000 });
        await page.locator('.step-panel.replaced').waitFor();
        const where = `${viewport.width}px ${colorScheme}`;
        for (const v of await seriousViolations(page))
          found.push(`graph ${where}: ${v.id} ${v.nodes.join('; ')}`);
        await page.screenshot({
          path: `test-results/screenshots/history-a11y-graph-${viewport.width}-${colorScheme}.png`,
          fullPage: true,
        });
        await page.getByRole('tab', { name: 'Timeline' }).click();
        await page.locator('.tl-row.replaced').waitFor();
        for (const v of await seriousViolations(page))
          found.push(`timeline ${where}: ${v.id} ${v.nodes.join('; ')}`);
        await page.screenshot({
          path: `test-results/screenshots/history-a11y-timeline-${viewport.width}-${colorScheme}.png`,
          fullPage: true,
        });
        expect(errors).toEqual([]);
        await context.close();
      }
    expect(found).toEqual([]);
  }, 90_000);
});
