/**
 * A run's `approval.webhook_url` checked when the run is started, against what the deployment can
 * send: a webhook is signed with `WEBHOOK_SECRET` and sent only to a host the address policy allows
 * (`HTTP_ALLOWLIST`). Either missing, the run would be accepted and its webhook never sent — found
 * only in an `ApprovalWebhookAttempted` event. The delivery checks both again (src/durable/approval-delivery.ts):
 * the variables may change while a run waits.
 */
import { signWebhook } from '../approval/webhook';
import { checkHost, parseAllowlist } from '../executor/tools/address-policy';

/**
 * Why a webhook to `url` could not be sent from this deployment, as a message saying what to do;
 * null when it can (or no `url` is given).
 * @example webhookUrlProblem('http://127.0.0.1:9000/hook', env) // '… 127.0.0.1 is a loopback address; add it to HTTP_ALLOWLIST …'
 */
export function webhookUrlProblem(
  url: string | undefined,
  env: Pick<Env, 'WEBHOOK_SECRET' | 'HTTP_ALLOWLIST'>,
): string | null {
  if (url === undefined) return null;
  // What the caller wrote first: a scheme fetch cannot send (file:, ftp:) would only fail each
  // delivery, and a user or password would be dropped — the receiver verifies the signature instead.
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return `config.approval.webhook_url must be an http or https URL (got ${target.protocol})`;
  }
  if (target.username || target.password) {
    return (
      'config.approval.webhook_url must not carry a user or password (user:password@): receivers ' +
      'verify the webhook-signature header (WEBHOOK_SECRET) instead'
    );
  }
  if (!env.WEBHOOK_SECRET) {
    return (
      'config.approval.webhook_url: this deployment cannot sign approval webhooks, WEBHOOK_SECRET is not ' +
      'set. Set it ("whsec_" followed by base64: `wrangler secret put WEBHOOK_SECRET`, locally in ' +
      '.dev.vars), or leave webhook_url out and decide through the API or the dashboard.'
    );
  }
  try {
    signWebhook(env.WEBHOOK_SECRET, 'msg_check', Date.now(), '');
  } catch (err) {
    return `config.approval.webhook_url: this deployment cannot sign approval webhooks: ${(err as Error).message}`;
  }
  const decision = checkHost(target.hostname, parseAllowlist(env.HTTP_ALLOWLIST));
  if (!decision.allowed) return `config.approval.webhook_url is refused: ${decision.reason}`;
  return null;
}
