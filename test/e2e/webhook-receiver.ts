/**
 * An approval-webhook receiver on loopback for the browser tests: it keeps what each delivery said, and
 * hands out a run's approval link once its webhook has arrived.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

type Delivery = { approval_url: string; run_id: string; plan_version: number; [field: string]: unknown };

export async function startWebhookReceiver(): Promise<{
  url: string;
  /** The approval link the run's webhook delivered, for its first plan or `planVersion` (waits 5 s at most). */
  approvalLink: (runId: string, planVersion?: number) => Promise<URL>;
  /** The body of the run's webhook for `planVersion`, as it arrived (waits 5 s at most). */
  delivery: (runId: string, planVersion: number) => Promise<Delivery>;
  close: () => void;
}> {
  const delivered: Delivery[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      delivered.push(JSON.parse(body) as Delivery);
      res.end('ok');
    });
  });
  const arrived = async (runId: string, planVersion: number | undefined) => {
    const match = (d: Delivery) =>
      d.run_id === runId && (planVersion === undefined || d.plan_version === planVersion);
    for (let i = 0; i < 100 && !delivered.some(match); i++) await new Promise((r) => setTimeout(r, 50));
    const found = delivered.find(match);
    if (!found) throw new Error(`no approval webhook arrived for ${runId}`);
    return found;
  };
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    async approvalLink(runId, planVersion) {
      return new URL((await arrived(runId, planVersion)).approval_url);
    },
    delivery: (runId, planVersion) => arrived(runId, planVersion),
    close: () => void server.close(),
  };
}
