/**
 * A run's approval webhook_url is checked against what the deployment can send when the run starts
 * (src/http/webhook-url-check.ts): a webhook nobody can sign, or to a host the address policy refuses,
 * is a 400 saying what to set, instead of a run whose webhook is never sent.
 */
import { describe, expect, it } from 'vitest';
import { webhookUrlProblem } from '../../src/http/webhook-url-check';

const SECRET = 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=';

describe('webhookUrlProblem', () => {
  it('has nothing to say without a webhook_url, or for one the deployment can sign and send', () => {
    expect(webhookUrlProblem(undefined, {})).toBeNull();
    expect(webhookUrlProblem('https://approver.example.com/hook', { WEBHOOK_SECRET: SECRET })).toBeNull();
    expect(
      webhookUrlProblem('http://127.0.0.1:9000/hook', {
        WEBHOOK_SECRET: SECRET,
        HTTP_ALLOWLIST: '127.0.0.1',
      }),
    ).toBeNull();
  });

  it('says to set WEBHOOK_SECRET, or to leave webhook_url out, when no secret is set', () => {
    const problem = webhookUrlProblem('https://approver.example.com/hook', {}) ?? '';
    expect(problem).toContain('WEBHOOK_SECRET is not set');
    expect(problem).toContain('wrangler secret put WEBHOOK_SECRET');
    expect(problem).toContain('leave webhook_url out');
  });

  it('names a secret that cannot sign without quoting it', () => {
    const problem = webhookUrlProblem('https://approver.example.com/hook', {
      WEBHOOK_SECRET: 'whsec_!!not-base64!!',
    });
    expect(problem).toContain('must be "whsec_" followed by non-empty base64');
    expect(problem).not.toContain('not-base64');
    expect(webhookUrlProblem('https://approver.example.com/hook', { WEBHOOK_SECRET: ' , ' })).toContain(
      'holds no secret',
    );
  });

  it('says which host the address policy refuses, and to add it to HTTP_ALLOWLIST', () => {
    const problem = webhookUrlProblem('http://127.0.0.1:9000/hook', { WEBHOOK_SECRET: SECRET }) ?? '';
    expect(problem).toContain('config.approval.webhook_url is refused: 127.0.0.1 is a loopback address');
    expect(problem).toContain('add it to HTTP_ALLOWLIST');
    expect(
      webhookUrlProblem('https://approver.example.com/hook', {
        WEBHOOK_SECRET: SECRET,
        HTTP_ALLOWLIST: 'other.example.com',
      }),
    ).toContain('approver.example.com is not in HTTP_ALLOWLIST');
  });
});
