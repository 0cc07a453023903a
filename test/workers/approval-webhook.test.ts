import { env } from 'cloudflare:workers';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { checkApprovalToken, mintApprovalToken } from '../../src/approval/tokens';
import { signWebhook, verifyWebhook } from '../../src/approval/webhook';

// The approval modules are tested in depth in plain Node (test/unit/approval-*.test.ts); this proves
// the same code, including the standardwebhooks package, runs inside workerd.
describe('approval building blocks in the Workers runtime', () => {
  const secret = env.WEBHOOK_SECRET ?? '';
  const body = JSON.stringify({ type: 'plan.approval_requested', run_id: 'run_w' });

  it('signs a webhook that the standardwebhooks package and verifyWebhook both accept', () => {
    const headers = signWebhook(secret, 'msg_w', Date.now(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(verifyWebhook(secret, new Headers(headers), body)).toEqual(JSON.parse(body));
  });

  it('mints and checks an approval token with Web Crypto', async () => {
    const now = Date.now();
    const { token, record } = await mintApprovalToken(now, 60_000);
    expect(await checkApprovalToken(record, token, now)).toEqual({ ok: true });
    expect(await checkApprovalToken(record, `${token}x`, now)).toMatchObject({ code: 'invalid_token' });
  });
});
