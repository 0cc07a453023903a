/**
 * How many sockets one run serves, and how much backlog they are queued between them. A message
 * queued for a socket stays in the run object's memory until its client reads it: sixty clients that
 * never read, each sent an 8 MB backlog, grew `wrangler dev` by 800 MB. So a run takes at most
 * WS_MAX_SOCKETS (made small here) and refuses one more before the upgrade with `429
 * too_many_sockets`, and its open sockets share one backlog budget — while the run and the sockets
 * it has go on.
 */
import { exports } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { BACKLOG_CLOSE, setWsBacklogBytes, setWsMaxSockets } from '../../src/durable/sockets';
import { events, startRun, waitForRun, type Json } from './helpers';

afterEach(() => {
  setWsBacklogBytes(null);
  setWsMaxSockets(null);
});

const wsRequest = (runId: string) =>
  new Request(`http://edgeplan.test/v1/runs/${runId}/ws`, { headers: { Upgrade: 'websocket' } });

/** A socket that reads: the seqs it got, and how it closed. */
async function watcher(runId: string) {
  const res = await exports.default.fetch(wsRequest(runId));
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const seqs: number[] = [];
  ws.addEventListener('message', (m) => seqs.push((JSON.parse(String(m.data)) as Json).seq as number));
  const closed = new Promise<number>((resolve) => ws.addEventListener('close', (e) => resolve(e.code)));
  ws.accept();
  return { ws, seqs, closed };
}

/** Whether a socket is sent `count` events before it closes ('all'), or closes first (its code). */
async function outcome(runId: string, count: number): Promise<'all' | number> {
  const s = await watcher(runId);
  const all = new Promise<'all'>((resolve) =>
    s.ws.addEventListener('message', () => {
      if (s.seqs.length === count) resolve('all');
    }),
  );
  const first = await Promise.race([all, s.closed]);
  s.ws.close();
  return first;
}

describe('the sockets of one run', () => {
  it('are at most WS_MAX_SOCKETS: one more is 429 too_many_sockets saying what to follow instead, and the others go on', async () => {
    setWsMaxSockets(3);
    const runId = await startRun({
      steps: [
        { id: 'a', action: 'demo.sleep', parameters: { ms: 300 } },
        { id: 'b', action: 'demo.echo', parameters: {}, dependencies: ['a'] },
      ],
    });
    const open = [await watcher(runId), await watcher(runId), await watcher(runId)];
    const refused = await exports.default.fetch(wsRequest(runId));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('Retry-After')).toBe('30');
    expect(await refused.json()).toEqual({
      error: {
        code: 'too_many_sockets',
        message: expect.stringContaining(`Run "${runId}" has 3 WebSockets open, the most one run serves`),
        details: { open: 3, max_sockets: 3 },
      },
    });
    expect((await waitForRun(runId)).status).toBe('completed');
    const all = (await events(runId)).map((e) => e.seq as number);
    for (const s of open) await expect.poll(() => s.seqs).toEqual(all);
    // A socket closed frees its place.
    open[0]!.ws.close();
    await open[0]!.closed;
    await expect.poll(async () => (await outcome(runId, all.length)) === 'all').toBe(true);
    for (const s of open.slice(1)) s.ws.close();
  });

  it('leave a wait on a run that serves all it takes to ask the run instead: it answers, not 404', async () => {
    setWsMaxSockets(1);
    const runId = await startRun({
      steps: [
        { id: 'a', action: 'demo.sleep', parameters: { ms: 300 } },
        { id: 'b', action: 'demo.echo', parameters: {}, dependencies: ['a'] },
      ],
    });
    const only = await watcher(runId);
    const res = await exports.default.fetch(`http://edgeplan.test/v1/runs/${runId}/wait?timeout_s=30`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ timed_out: false, run: { run_id: runId, status: 'completed' } });
    only.ws.close();
  });

  it('share one backlog budget: a socket opened while another holds it is sent a 64th, and closes with 4000', async () => {
    const runId = await startRun({
      steps: Array.from({ length: 12 }, (_, i) => ({
        id: `s${i}`,
        action: 'demo.echo',
        parameters: { pad: 'x'.repeat(500) },
      })),
    });
    await waitForRun(runId);
    const all = (await events(runId)).map((e) => e.seq as number);
    // The whole log fits the budget: the first socket is sent all of it, and holds it while open.
    setWsBacklogBytes(64_000);
    const first = await watcher(runId);
    await expect.poll(() => first.seqs).toEqual(all);
    expect(await outcome(runId, all.length)).toBe(BACKLOG_CLOSE);
    // Closed, the first socket's share is free again: the next is sent everything.
    first.ws.close();
    await first.closed;
    await expect.poll(() => outcome(runId, all.length)).toBe('all');
  });
});
