/**
 * The dashboard on a run that serves all the WebSockets it takes (`429 too_many_sockets`, 100 open):
 * the run page says plainly that it follows the run by asking the server, follows it that way — one
 * `/wait?until=any_change` at a time, not `/events` four times a second — and shows the run's end
 * when it comes. The approval link's page, which opens no socket, is decided as ever.
 */
import { describe, expect, it } from 'vitest';
import { dashboardSetup } from './dashboard-setup';

const { env, api, open, shot, waitForStatus } = dashboardSetup('dashboard-socket-cap', { webhooks: true });

/** Opens sockets on the run up to its cap (100); returns them, to close after. */
async function fillSockets(runId: string): Promise<WebSocket[]> {
  const url = `${env.server.base.replace(/^http/, 'ws')}/v1/runs/${runId}/ws`;
  const sockets: WebSocket[] = [];
  for (let i = 0; i < 100; i++) {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve(), { once: true });
      ws.addEventListener('error', () => reject(new Error(`socket ${i + 1} did not open`)), { once: true });
    });
    sockets.push(ws);
  }
  const refused = await fetch(`${env.server.base}/v1/runs/${runId}/ws`);
  expect(refused.status).toBe(429);
  return sockets;
}

async function awaitingApproval(goal: string): Promise<string> {
  const created = await api('POST', '/v1/runs', {
    plan: { goal, steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] },
    config: { require_plan_approval: true, approval: { webhook_url: env.hooks.url } },
  });
  const runId = created.run_id as string;
  await waitForStatus(runId, 'awaiting_approval');
  return runId;
}

describe('the dashboard on a run that serves no more sockets', () => {
  it('follows the run page by waiting on the server, says so, and shows the run end', async () => {
    const runId = await awaitingApproval('watched by many');
    const sockets = await fillSockets(runId);
    const asked: string[] = [];
    const { page, errors } = await open(`/#/runs/${runId}`, (p) => {
      p.on('request', (r) => asked.push(new URL(r.url()).pathname + new URL(r.url()).search));
      return Promise.resolve();
    });
    await page.waitForSelector('[data-run-status="awaiting_approval"]');
    const note = page.getByRole('status').filter({ hasText: 'Following this run by asking the server' });
    await note.waitFor({ timeout: 15_000 });
    await expect(note.innerText()).resolves.toContain('as many live connections open as it serves');
    // Not an outage: no "Connection lost", no error.
    await expect(page.getByText('Connection lost').count()).resolves.toBe(0);
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    // The next change is waited for on the server, one request at a time.
    const waits = () => asked.filter((p) => p.startsWith(`/v1/runs/${runId}/wait?until=any_change`)).length;
    await expect.poll(waits, { timeout: 15_000 }).toBeGreaterThan(0);
    const eventReads = () => asked.filter((p) => p.startsWith(`/v1/runs/${runId}/events`)).length;
    const before = eventReads();
    await page.waitForTimeout(3000);
    // Polling /events every 250 ms would have read it a dozen times meanwhile.
    expect(eventReads() - before).toBeLessThanOrEqual(1);
    await shot(page, 'run-socket-cap-polling');
    const approved = await fetch(`${env.server.base}/v1/runs/${runId}/approval`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(approved.status).toBe(200);
    await page.waitForSelector('[data-run-status="completed"]', { timeout: 15_000 });
    await shot(page, 'run-socket-cap-completed');
    expect(errors).toEqual([]);
    for (const s of sockets) s.close();
    await page.close();
  }, 120_000);

  it('decides from the approval link page as ever (it opens no socket)', async () => {
    const runId = await awaitingApproval('approved by link');
    const sockets = await fillSockets(runId);
    const link = await env.hooks.approvalLink(runId);
    const opened: string[] = [];
    const { page, errors } = await open(`${link.pathname}${link.search}`, (p) => {
      p.on('websocket', (ws) => opened.push(ws.url()));
      return Promise.resolve();
    });
    await page.getByRole('button', { name: 'Approve' }).click({ timeout: 15_000 });
    await waitForStatus(runId, 'completed');
    await shot(page, 'approval-link-socket-cap');
    expect(opened).toEqual([]);
    await expect(page.getByText('Connection lost').count()).resolves.toBe(0);
    expect(errors).toEqual([]);
    for (const s of sockets) s.close();
    await page.close();
  }, 120_000);
});
