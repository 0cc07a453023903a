/**
 * Rotating WEBHOOK_SECRET: with two secrets listed (this project's WEBHOOK_SECRET, vitest.config.mts),
 * a run's approval webhook carries a signature by each, so a real receiver on 127.0.0.1 holding either
 * one alone — verifying with the `standardwebhooks` package (test/workers-http/loopback-server.ts
 * `/verify/`) — accepts it, and one holding a secret not listed refuses it.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { webhookSecrets } from '../../src/approval/webhook';
import { api, events, startRun, waitForRun, type Json } from '../workers/helpers';
import { base, hits } from './loopback';

const plan = { goal: 'approve me', steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] };
const [OLD, NEW] = webhookSecrets(env.WEBHOOK_SECRET);
const UNLISTED = 'whsec_' + btoa('a secret this deployment does not list');

/** Starts a run whose approval webhook goes to a receiver holding `secret`; its first attempt. */
async function deliverTo(secret: string): Promise<{ runId: string; path: string; attempt: Json }> {
  const path = `/verify/${crypto.randomUUID()}`;
  const runId = await startRun(plan, {
    require_plan_approval: true,
    approval: {
      webhook_url: `${base}${path}?secret=${encodeURIComponent(secret)}`,
      timeout_s: 600,
    },
  });
  const attempts = async () =>
    (await events(runId))
      .filter((e) => e.event_type === 'ApprovalWebhookAttempted')
      .map((e) => e.payload as Json);
  await vi.waitFor(async () => expect(await attempts()).not.toHaveLength(0), {
    timeout: 10_000,
    interval: 50,
  });
  return { runId, path, attempt: (await attempts())[0]! };
}

describe('approval webhooks while WEBHOOK_SECRET is rotated', () => {
  it('lists two distinct secrets in this project', () => {
    expect(webhookSecrets(env.WEBHOOK_SECRET)).toHaveLength(2);
    expect(OLD).not.toBe(NEW);
  });

  it('is accepted by a receiver still on the old secret, and its link approves the run', async () => {
    const { runId, path, attempt } = await deliverTo(OLD!);
    expect(attempt).toMatchObject({ attempt: 1, ok: true, status: 200 });
    expect(await hits(path)).toBe(1);
    const last = await (await fetch(`${base}/last-body?path=${encodeURIComponent(path)}`)).json<Json>();
    const link = new URL((JSON.parse(last.body as string) as Json).approval_url as string);
    expect((await api('POST', `${link.pathname}${link.search}`, { decision: 'approve' })).status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
  });

  it('is accepted by a receiver already on the new secret', async () => {
    const { attempt } = await deliverTo(NEW!);
    expect(attempt).toMatchObject({ attempt: 1, ok: true, status: 200 });
  });

  it('is refused by a receiver holding a secret not listed (401, not retried)', async () => {
    const { attempt } = await deliverTo(UNLISTED);
    expect(attempt).toMatchObject({ attempt: 1, ok: false, status: 401, next_attempt_at: null });
    expect(String(attempt.error)).toMatch(/^http_error: Webhook to http:\/\/127\.0\.0\.1:\d+ answered 401/);
  });
});
