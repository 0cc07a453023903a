/**
 * Approval webhooks signed per Standard Webhooks (SPEC §6): `webhook-id`, `webhook-timestamp` (whole
 * seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed by
 * `WEBHOOK_SECRET` in `whsec_<base64>` form. `WEBHOOK_SECRET` may list several secrets (a rotation:
 * {@link webhookSecrets}); a webhook then carries one signature for each, space-separated, as the
 * spec provides for rotation, so a receiver verifying with any one of them accepts it.
 *
 * The HMAC comes from the `standardwebhooks` package: for string bodies it is plain JavaScript
 * (no Buffer, no node:crypto), so it runs unchanged in Workers and Node. Its own `verify()` reads
 * `Date.now()` and fixes the tolerance at five minutes, so verification here checks the timestamp
 * itself (with an injectable clock) and uses the package only to compute the expected signature.
 */
import { Webhook } from 'standardwebhooks';
import { retryAfterMs } from '../client/retry-after';
import { EdgeplanError } from '../errors';
import type { ErrorInfo } from '../errors';
import type { ApprovalChanges } from '../plan/approval-changes';
import type { Plan } from '../plan/model';
import { constantTimeEqual } from './constant-time';
import { WebhookError } from './webhook-error';
import { webhookSecrets } from './webhook-secrets';

export { WebhookError, WebhookErrorCode } from './webhook-error';
export { webhookSecrets } from './webhook-secrets';

/** Receivers refuse timestamps further than this from their clock (SPEC §6: five minutes). */
export const DEFAULT_TOLERANCE_S = 300;

/** How long a delivery may take before it counts as failed. */
export const DEFAULT_SEND_TIMEOUT_MS = 10_000;

export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** Request headers as a `Headers` object or a plain record (names in any case). */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | undefined>;

/** The body of an approval webhook. */
export type ApprovalWebhookPayload = {
  type: 'plan.approval_requested';
  run_id: string;
  plan: Plan;
  plan_version: number;
  /** `GET` this for the run (needs the API token when one is set). */
  run_url: string;
  /** Single-use: `POST` a decision here; carries its own capability token. */
  approval_url: string;
  /** ISO-8601; after it the approval URL stops working and the run's `default_action` applies. */
  expires_at: string;
  /** What happens at `expires_at` if nobody decides first: the run's `approval.default_action`. */
  default_action: 'approve' | 'reject';
  /** The last version an approval granted; null for the run's first plan (nothing approved yet). */
  last_approved_version: number | null;
  /**
   * What `plan` changes since `last_approved_version` — steps added, changed, removed, a one-line
   * `summary`, and why each version since was written; null with `last_approved_version`.
   */
  changes: ApprovalChanges | null;
};

/**
 * Signs `body` for sending. `timestamp` is epoch milliseconds (the engine's clock); the header
 * carries whole seconds. `secret` is a `WEBHOOK_SECRET` value: one secret, or several (a rotation,
 * {@link webhookSecrets}), each signing, so `webhook-signature` is `v1,<sig1> v1,<sig2>`. Throws
 * `EdgeplanError` `invalid_webhook_secret` for a secret that is not base64 (naming which entry,
 * never its text) or a value with no secret in it, and `invalid_webhook_id` for an id that cannot be
 * a header value.
 * @example
 * const headers = signWebhook(env.WEBHOOK_SECRET, 'msg_2b1f', Date.now(), JSON.stringify(payload));
 * // { 'webhook-id': 'msg_2b1f', 'webhook-timestamp': '1767225600', 'webhook-signature': 'v1,K5o…=' }
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): WebhookHeaders {
  if (!/^[\x21-\x7e]{1,256}$/.test(id)) {
    throw new EdgeplanError(
      'invalid_webhook_id',
      `webhook-id must be 1-256 visible ASCII characters, got ${JSON.stringify(id)}`,
    );
  }
  const seconds = Math.floor(timestamp / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': signaturesFor(secret, id, seconds, body).join(' '),
  };
}

/**
 * Checks a received webhook and returns its parsed JSON body (`undefined` for an empty body).
 * `secret` may list several secrets as `WEBHOOK_SECRET` does; a `v1` signature by any of them will do.
 * Throws {@link WebhookError}: `missing_headers`, `stale_timestamp` (older or newer than
 * `toleranceS` around `now`), `bad_signature`, `invalid_payload`. Replays inside the tolerance
 * window verify again: a receiver that must act once remembers `webhook-id`s for that window.
 * A misconfigured secret is an `EdgeplanError` `invalid_webhook_secret`, not a refusal.
 * @example
 * const payload = verifyWebhook(env.WEBHOOK_SECRET, request.headers, await request.text());
 */
export function verifyWebhook(
  secret: string,
  headers: HeaderSource,
  body: string,
  { toleranceS = DEFAULT_TOLERANCE_S, now = Date.now() }: { toleranceS?: number; now?: number } = {},
): unknown {
  const id = readHeader(headers, 'webhook-id');
  const ts = readHeader(headers, 'webhook-timestamp');
  const sig = readHeader(headers, 'webhook-signature');
  if (!id || !ts || !sig) {
    const given = { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': sig };
    const missing = Object.keys(given).filter((k) => !given[k as keyof typeof given]);
    throw new WebhookError('missing_headers', `Missing webhook header(s): ${missing.join(', ')}`);
  }
  if (!/^\d{1,12}$/.test(ts)) {
    throw new WebhookError(
      'missing_headers',
      `webhook-timestamp must be whole seconds since the epoch, got ${JSON.stringify(ts)}`,
    );
  }

  const seconds = Number(ts);
  const age = Math.floor(now / 1000) - seconds;
  if (age > toleranceS) {
    throw new WebhookError(
      'stale_timestamp',
      `webhook-timestamp ${ts} is ${age} s old; the limit is ${toleranceS} s`,
    );
  }
  if (-age > toleranceS) {
    throw new WebhookError(
      'stale_timestamp',
      `webhook-timestamp ${ts} is ${-age} s in the future; the limit is ${toleranceS} s`,
    );
  }

  const expected = signaturesFor(secret, id, seconds, body);
  // The header may list several space-separated signatures (key rotation); any v1 match will do.
  const matched = sig
    .split(' ')
    .some((s) => s.startsWith('v1,') && expected.some((e) => constantTimeEqual(s, e)));
  if (!matched)
    throw new WebhookError('bad_signature', `No v1 signature in webhook-signature matches webhook ${id}`);

  if (body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    throw new WebhookError('invalid_payload', `Webhook ${id} is signed but its body is not JSON`);
  }
}

export type SendWebhookOptions = {
  url: string;
  secret: string;
  payload: ApprovalWebhookPayload;
  /** The fetch to send with; give a policy-checked one, since `url` comes from the run's config. */
  fetch: typeof fetch;
  /** `webhook-id`: the same for every retry of one delivery, so receivers can drop duplicates. */
  id: string;
  /** Epoch milliseconds; becomes `webhook-timestamp`. */
  now: number;
  timeoutMs?: number;
};

export type SendWebhookResult =
  { ok: true; status: number } | { ok: false; status: number; error: ErrorInfo };

/**
 * POSTs a signed approval webhook and reports how it went; never throws. `status` is the
 * response's (0 when none came). Failures carry an {@link ErrorInfo}: `invalid_url`,
 * `invalid_webhook_secret`, `invalid_webhook_id`, `invalid_payload`, `timeout`, `network_error` (retryable), `http_error` (retryable for
 * 408, 429 and 5xx). Redirects are not followed: a 3xx is a failure naming its `location`.
 * @example
 * const r = await sendApprovalWebhook({ url, secret: env.WEBHOOK_SECRET, payload, fetch, id: `msg_${uuid}`, now });
 * if (!r.ok && r.error.retryable) scheduleRetry();
 */
export async function sendApprovalWebhook(opts: SendWebhookOptions): Promise<SendWebhookResult> {
  const { url, timeoutMs = DEFAULT_SEND_TIMEOUT_MS } = opts;
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) {
    return failure(0, 'invalid_url', `Webhook URL must be http(s), got ${JSON.stringify(url)}`, false);
  }
  let body: string;
  let headers: WebhookHeaders;
  try {
    body = JSON.stringify(opts.payload);
    headers = signWebhook(opts.secret, opts.id, opts.now, body);
  } catch (err) {
    // A bad secret or id (EdgeplanError with its code), or a payload JSON cannot hold.
    return failure(0, codeOf(err, 'invalid_payload'), messageOf(err), false);
  }

  // A plain call: as `opts.fetch(…)` the Workers runtime's global fetch throws "Illegal invocation".
  const send = opts.fetch;
  let res: Response;
  try {
    res = await send(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    const name = err instanceof Error ? err.name : '';
    if (name === 'TimeoutError' || name === 'AbortError') {
      return failure(0, 'timeout', `Webhook to ${origin(url)} got no response within ${timeoutMs} ms`, true);
    }
    return failure(0, 'network_error', `Webhook to ${origin(url)} failed: ${messageOf(err)}`, true);
  }
  // Nothing reads the body; cancelling it frees the connection (Workers warn about unread bodies).
  await res.body?.cancel().catch(() => {});

  if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
  const where =
    res.status >= 300 && res.status < 400
      ? ` (redirect to ${res.headers.get('location') ?? '?'} not followed)`
      : '';
  const retryable = res.status >= 500 || res.status === 408 || res.status === 429;
  const result = failure(
    res.status,
    'http_error',
    `Webhook to ${origin(url)} answered ${res.status}${where}`,
    retryable,
  );
  // A receiver that says when to come back (429/503 Retry-After) is not called again sooner.
  const asked = retryable ? retryAfterMs(res.headers.get('retry-after')) : undefined;
  if (asked !== undefined && !result.ok) result.error.retry_after_ms = asked;
  return result;
}

/** One `v1,<base64>` signature for each secret `value` lists, in its order. */
function signaturesFor(value: string, id: string, seconds: number, body: string): string[] {
  const secrets = webhookSecrets(value);
  if (secrets.length === 0) {
    throw new EdgeplanError(
      'invalid_webhook_secret',
      'WEBHOOK_SECRET holds no secret, only separators: set it to "whsec_" followed by base64 ' +
        '(several, separated by commas, while one is rotated)',
    );
  }
  return secrets.map((secret, i) => {
    let wh: Webhook;
    try {
      wh = new Webhook(secret);
    } catch (err) {
      // Never echo the secret itself: say which entry it is.
      const which = secrets.length > 1 ? `'s entry ${i + 1} of ${secrets.length}` : '';
      throw new EdgeplanError(
        'invalid_webhook_secret',
        `WEBHOOK_SECRET${which} must be "whsec_" followed by non-empty base64: ${messageOf(err)}`,
      );
    }
    return wh.sign(id, new Date(seconds * 1000), body);
  });
}

function readHeader(headers: HeaderSource, name: string): string | undefined {
  if (typeof headers.get === 'function')
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | undefined>;
  for (const key of Object.keys(record)) if (key.toLowerCase() === name) return record[key];
  return undefined;
}

function failure(status: number, code: string, message: string, retryable: boolean): SendWebhookResult {
  return { ok: false, status, error: { code, message, retryable } };
}

function codeOf(err: unknown, fallback: string): string {
  return err instanceof EdgeplanError ? err.code : fallback;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The URL without path or query, which may hold the receiver's own secrets. */
function origin(url: string): string {
  return new URL(url).origin;
}
