/**
 * Why an incoming webhook was refused, as a stable code a receiver can map to a response.
 */
import { EdgeplanError } from '../errors';

export const WebhookErrorCode = {
  /** A required header is absent, or `webhook-timestamp` is not whole seconds since the epoch. */
  missing_headers: 'missing_headers',
  /** `webhook-timestamp` is further from now than the tolerance, in the past or the future. */
  stale_timestamp: 'stale_timestamp',
  /** No `v1` signature in `webhook-signature` matches the body under the secret. */
  bad_signature: 'bad_signature',
  /** The signature is good but the body is not JSON. */
  invalid_payload: 'invalid_payload',
} as const;
export type WebhookErrorCode = (typeof WebhookErrorCode)[keyof typeof WebhookErrorCode];

/**
 * Thrown by `verifyWebhook`. An {@link EdgeplanError} whose `code` is narrowed to
 * {@link WebhookErrorCode}; never retryable (the same request will be refused again).
 * @example
 * try { verifyWebhook(secret, req.headers, body); }
 * catch (e) { if (e instanceof WebhookError && e.code === 'stale_timestamp') return new Response(null, { status: 401 }); throw e; }
 */
export class WebhookError extends EdgeplanError {
  declare readonly code: WebhookErrorCode;

  constructor(code: WebhookErrorCode, message: string) {
    super(code, message, { retryable: false });
  }
}
