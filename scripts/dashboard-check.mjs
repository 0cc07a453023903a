#!/usr/bin/env node
// A real-browser check of the dashboard (GET /): starts `wrangler dev` with the demo tools on a free
// port, drives the page in headless Chromium — validate and run the prefilled demo plan, follow it
// live to `completed` while the first WebSocket is cut mid-stream (the page must reconnect from the
// last seq it saw and lose nothing), submit an invalid plan, switch to the token (polling) mode — and
// saves screenshots to .bench/. Not part of `npm test`: CI has no Chromium.
// Usage: npm run check:dashboard  (needs /usr/bin/chromium: apt-get install -y chromium)
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startDevServer } from './dev-server.mjs';

const root = new URL('..', import.meta.url).pathname;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT = join(root, '.bench');

if (!existsSync(CHROMIUM)) {
  console.error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  process.exit(2);
}

const { base, stop } = await startDevServer({ name: 'edgeplan-dashboard' });
let browser;

const problems = [];
try {
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    // Chromium logs every 4xx the page receives; the 422 (invalid plan) and 404 (unknown run) below are expected.
    if (msg.type() === 'error' && !/status of 4(22|04)/.test(msg.text()))
      problems.push(`console error: ${msg.text()}`);
  });

  // Cut the first WebSocket after 3 events; later ones pass through untouched.
  const sockets = [];
  await page.routeWebSocket(/\/v1\/runs\/[^/]+\/ws/, (ws) => {
    sockets.push(ws.url());
    const server = ws.connectToServer();
    if (sockets.length > 1) return;
    let n = 0;
    server.onMessage((m) => {
      n += 1;
      if (n <= 3) ws.send(m);
      else if (n === 4) {
        void ws.close({ code: 4001, reason: 'cut by dashboard-check' });
        void server.close();
      }
    });
  });

  await step('the page loads with the tools and the prefilled demo plan', async () => {
    const res = await page.goto(`${base}/`);
    expect(res?.status() === 200, `GET / answered ${res?.status()}`);
    await page.locator('#tools-list li').first().waitFor();
    expect((await page.inputValue('#plan-json')).includes('{{ steps.a.output }}'), 'demo plan prefilled');
  });

  await step('Validate shows the plan is valid, with estimates', async () => {
    await page.click('#validate-btn');
    await page.locator('#new-run-result .okbox', { hasText: 'the plan is valid' }).waitFor();
    await page.locator('#new-run-result dd', { hasText: '→' }).waitFor();
  });

  let runId = '';
  await step(
    'Run starts the plan and opens it; it completes with live events after a reconnect',
    async () => {
      await page.click('#run-btn');
      await page.waitForURL(/#run=run_/);
      runId = decodeURIComponent(new URL(page.url()).hash.slice('#run='.length));
      await page.locator('#run-status .badge', { hasText: 'completed' }).waitFor({ timeout: 20_000 });
      await page.locator('#event-log .etype', { hasText: 'RunTerminated' }).waitFor({ timeout: 10_000 });
      const api = await (await fetch(`${base}/v1/runs/${runId}/events?limit=1000`)).json();
      const want = api.events.map((e) => e.seq);
      const seen = (await page.$$eval('#event-log li', (lis) => lis.map((li) => li.dataset.seq))).map(Number);
      expect(
        JSON.stringify(seen) === JSON.stringify(want),
        `event log shows seqs ${seen.join(',')}, the API has ${want.join(',')}`,
      );
      expect(sockets.length >= 2, `the page reconnected (${sockets.length} sockets)`);
      expect(/[?&]after=3\b/.test(sockets[1] ?? ''), `reconnected from seq 3: ${sockets[1]}`);
      await page.locator(`#runs-body tr.selected[data-run="${runId}"]`).waitFor();
    },
  );

  await step('a step result expands as JSON; counts and final output are shown', async () => {
    const row = page.locator('#steps-body tr', { has: page.locator('th', { hasText: /^d$/ }) });
    await row.getByRole('button', { name: 'Show' }).click();
    await page.locator('#steps-body tr.result-row:not([hidden]) pre', { hasText: 'b says: hello' }).waitFor();
    expect((await page.textContent('#count-completed')) === '4', 'four steps completed');
    expect((await page.textContent('#run-final'))?.includes('side branch done'), 'final output shown');
    await page.locator('#event-log li').nth(1).locator('summary').click();
  });

  mkdirSync(OUT, { recursive: true });
  await page.screenshot({ path: join(OUT, 'dashboard.png'), fullPage: true });

  await step('Run with an invalid plan shows the 422 findings', async () => {
    const bad = { steps: [{ id: 'x', action: 'no.such_tool', dependencies: ['ghost'] }] };
    await page.fill('#plan-json', JSON.stringify(bad, null, 2));
    await page.click('#run-btn');
    const box = page.locator('#new-run-result .error');
    await box.locator('code', { hasText: 'invalid_plan' }).waitFor();
    await box.locator('td', { hasText: 'unknown_tool' }).waitFor();
    await box.locator('td', { hasText: 'unknown_dependency' }).waitFor();
    await page.screenshot({ path: join(OUT, 'dashboard-invalid.png'), fullPage: true });
    await page.fill('#plan-json', '{ "steps": [');
    await page.click('#validate-btn');
    await page.locator('#new-run-result .error', { hasText: 'not valid JSON' }).waitFor();
    await page.click('#reset-demo');
  });

  await step('a failed step shows its error; Retry re-runs it to completion', async () => {
    const plan = {
      goal: 'Dashboard check: fail once, then retry',
      steps: [
        { id: 'first', action: 'demo.echo', parameters: { ok: true } },
        {
          id: 'flaky',
          action: 'demo.flaky',
          parameters: { fail_times: 1, key: `check-${Date.now()}` },
          dependencies: ['first'],
        },
      ],
    };
    await page.fill('#plan-json', JSON.stringify(plan, null, 2));
    await page.fill('#config-json', JSON.stringify({ retry_failed_steps: 0 }));
    await page.click('#run-btn');
    await page.locator('#run-status .badge', { hasText: 'failed' }).waitFor({ timeout: 20_000 });
    await page.locator('#steps-body td.err', { hasText: /\w+: / }).waitFor();
    await page.locator('#run-failure .error').waitFor();
    await page.locator('#event-log .ev-bad').first().waitFor();
    expect(await page.isEnabled('#retry-btn'), 'Retry is enabled on a failed run');
    expect(await page.isDisabled('#cancel-btn'), 'Cancel is disabled on a failed run');
    await page.screenshot({ path: join(OUT, 'dashboard-failed.png'), fullPage: true });
    await page.click('#retry-btn');
    await page.locator('#run-action-result', { hasText: 'Retry accepted' }).waitFor();
    await page.locator('#run-status .badge', { hasText: 'completed' }).waitFor({ timeout: 20_000 });
    expect((await page.textContent('#count-completed')) === '2', 'both steps completed after the retry');
  });

  await step('Cancel stops a running run', async () => {
    const plan = { steps: [{ id: 'long', action: 'demo.sleep', parameters: { ms: 60_000 } }] };
    await page.fill('#plan-json', JSON.stringify(plan));
    await page.fill('#config-json', '');
    await page.click('#run-btn');
    await page.locator('#steps-body .badge', { hasText: 'running' }).waitFor({ timeout: 20_000 });
    page.once('dialog', (d) => void d.accept());
    await page.click('#cancel-btn');
    await page.locator('#run-action-result', { hasText: 'Cancel accepted' }).waitFor();
    await page.locator('#run-status .badge', { hasText: 'cancelled' }).waitFor({ timeout: 20_000 });
    await page.locator('#event-log .etype', { hasText: 'RunTerminated' }).waitFor();
    await page.click('#reset-demo');
  });

  await step('with a token set, the page says why and follows events by polling', async () => {
    await page.fill('#api-token', 'any-token');
    await page.click('#token-form button[type=submit]');
    await page.locator('#token-note').waitFor({ state: 'visible' });
    await page.locator('#live-status', { hasText: 'Polling' }).waitFor();
    await page.locator('#event-log .etype', { hasText: 'RunTerminated' }).waitFor();
    await page.click('#token-clear');
    await page.locator('#token-note').waitFor({ state: 'hidden' });
    await page.locator('#live-status', { hasText: 'Live (WebSocket)' }).waitFor();
  });

  await step('an unknown run id shows not_found and stops following', async () => {
    await page.evaluate(() => {
      location.hash = '#run=run_nosuchrun';
    });
    await page.locator('#run-error .error code', { hasText: 'not_found' }).waitFor();
    await page.locator('#live-status', { hasText: 'No such run' }).waitFor();
    await page.evaluate(() => history.back());
    await page.locator('#run-status .badge', { hasText: 'cancelled' }).waitFor();
  });

  await step('a narrow screen shows one column', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(OUT, 'dashboard-narrow.png'), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow <= 0, `page is ${overflow}px wider than the viewport`);
  });
} finally {
  await browser?.close();
  stop();
}

if (problems.length) {
  console.error(`\n${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(
  `\nscreenshots in ${OUT}: dashboard.png, dashboard-invalid.png, dashboard-failed.png, dashboard-narrow.png`,
);

async function step(name, fn) {
  const before = problems.length;
  try {
    await fn();
  } catch (err) {
    problems.push(`${name}: ${err instanceof Error ? err.message.split('\n')[0] : err}`);
  }
  console.log(`${problems.length === before ? 'ok  ' : 'FAIL'} ${name}`);
}

function expect(cond, message) {
  if (!cond) throw new Error(message);
}
