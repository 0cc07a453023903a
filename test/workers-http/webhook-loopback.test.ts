/**
 * `sendApprovalWebhook` handed the Workers runtime's own global `fetch` (as its documentation shows)
 * delivers to a real server on 127.0.0.1 (test/workers-http/loopback-server.ts).
 */
import { describe, expect, it } from 'vitest';
import { sendApprovalWebhook } from '../../src/approval/webhook';
import { base, hits } from './loopback';

describe('sendApprovalWebhook with the global fetch', () => {
  it('delivers the signed POST and reports the status', async () => {
    const path = `/echo/webhook-${crypto.randomUUID()}`;
    const result = await sendApprovalWebhook({
      url: `${base}${path}`,
      secret: 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=',
      id: 'msg_loopback',
      now: Date.now(),
      fetch,
      payload: {
        type: 'plan.approval_requested',
        run_id: 'run_loopback',
        plan: {
          id: 'plan_1',
          version: 1,
          goal: 'g',
          strategy: 'manual',
          steps: [{ id: 'a', description: 'a', action: 'demo.echo', parameters: {}, dependencies: [] }],
          created_at: '2026-01-01T00:00:00.000Z',
        },
        plan_version: 1,
        run_url: 'http://edgeplan.test/v1/runs/run_loopback',
        approval_url: 'http://edgeplan.test/v1/runs/run_loopback/approval?token=t',
        expires_at: '2026-01-08T00:00:00.000Z',
        default_action: 'reject',
        last_approved_version: null,
        changes: null,
      },
    });
    expect(result).toEqual({ ok: true, status: 200 });
    expect(await hits(path)).toBe(1);
  });
});
