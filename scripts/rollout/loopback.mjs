/**
 * The rehearsal's side of a run on loopback: a receiver for the approval webhooks run objects send,
 * and a client of a run's WebSocket (`GET /v1/runs/:id/ws`), as a user's would be.
 *
 * @example
 * const hooks = await webhookReceiver(9682);
 * const events = await socketEvents(base, runId, { enough: (es) => es.length === 3 });
 * await hooks.close();
 */
import { createServer } from 'node:http';

/** Approval webhooks the objects send, kept for their links; `close()` ends the receiver. */
export async function webhookReceiver(port) {
  const deliveries = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      deliveries.push(JSON.parse(body));
      res.end('ok');
    });
  });
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    close: () => new Promise((r) => server.close(r)),
  };
}

/**
 * The events run `runId`'s WebSocket sends (from `after`), collected until `enough(events)` holds;
 * `during()` runs once the socket is open (an answer sent while watching), and is waited for too: its
 * events may all arrive before its own request is answered. Throws after `ms`.
 */
export async function socketEvents(base, runId, { after = 0, enough, during = async () => {}, ms = 60_000 }) {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/v1/runs/${runId}/ws?after=${after}`);
  const events = [];
  let done = Promise.resolve();
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`ws of ${runId}: not enough within ${ms} ms (${events.length} events)`)),
        ms,
      );
      ws.addEventListener('message', (m) => {
        events.push(JSON.parse(String(m.data)));
        if (enough(events)) {
          clearTimeout(timer);
          resolve();
        }
      });
      ws.addEventListener('error', () => reject(new Error(`ws of ${runId}: connection failed`)));
      ws.addEventListener('open', () => (done = during()).catch(reject), { once: true });
    });
    await done;
  } finally {
    ws.close();
  }
  return events;
}
