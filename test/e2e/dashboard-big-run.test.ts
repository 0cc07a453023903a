/**
 * A big run's page while it reads the run's past, in chromium against `wrangler dev`: the events of a
 * run of thousands of steps take seconds to replay (its WebSocket backlog), and meanwhile the page
 * says what the run is now — the snapshot's step counts and colours, no running time made up from
 * the events so far — and neither redraws nor reads the run again for each event on the way. The
 * page's WebSockets relay only what the test lets through, so "meanwhile" is a state, not a moment.
 */
import { expect, it } from 'vitest';
import type { Json } from './dashboard-helpers';
import { dashboardSetup } from './dashboard-setup';

const { api, waitForStatus, open, shot } = dashboardSetup('dashboard-big-run-e2e');

/**
 * Runs in the page before its scripts: a WebSocket opens the real one only once the test calls
 * `window.relay(n)`, and hands on its first `n` messages, none after (nor its closing).
 */
function relayedWebSockets() {
  const Real = window.WebSocket;
  let start!: (n: number) => void;
  const gate = new Promise<number>((r) => (start = r));
  Object.assign(window, { relay: (n: number) => start(n) });
  class Relayed extends EventTarget {
    private ws: WebSocket | null = null;
    constructor(url: string | URL, protocols?: string | string[]) {
      super();
      void gate.then((n) => {
        let left = n;
        const ws = new Real(url, protocols);
        this.ws = ws;
        ws.addEventListener('open', () => this.dispatchEvent(new Event('open')));
        ws.addEventListener('message', (e) => {
          if (left-- > 0) this.dispatchEvent(new MessageEvent('message', { data: e.data }));
        });
      });
    }
    send(data: string) {
      this.ws?.send(data);
    }
    close(code?: number, reason?: string) {
      this.ws?.close(code, reason);
    }
  }
  window.WebSocket = Relayed as unknown as typeof WebSocket;
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
  const { page, errors } = await open(
    `/#/runs/${runId}`,
    async (p) => void (await p.addInitScript(relayedWebSockets)),
  );
  await page.locator('[data-run-status="completed"]').waitFor();
  // The first 2,000 events of the past, then nothing: the page has not read up to its snapshot.
  await page.evaluate(() => (window as unknown as { relay(n: number): void }).relay(2000));
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
  const { page, errors } = await open(
    `/#/runs/${runId}`,
    async (p) => void (await p.addInitScript(relayedWebSockets)),
  );
  await page.locator('[data-run-status="completed"]').waitFor();
  const reads: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === `/v1/runs/${runId}`) reads.push(r.url());
  });
  await page.evaluate(() => (window as unknown as { relay(n: number): void }).relay(Number.MAX_SAFE_INTEGER));
  // Caught up: actions are offered (Delete, on an ended run), and the run time is said.
  await page.getByRole('button', { name: 'Delete' }).waitFor();
  await page.locator('[data-run-time]').waitFor();
  // At most the read its last event (RunTerminated, the snapshot's own last) asks for.
  expect(reads.length).toBeLessThanOrEqual(1);
  expect(errors).toEqual([]);
  await page.close();
}, 60_000);
