/**
 * Capability tokens for single-use approval URLs (SPEC §6): whoever holds the URL may decide on the
 * run's plan once, before the deadline, with no API token. Only a SHA-256 of the token is stored, so
 * a leaked row or event log grants nothing. Web Crypto only, for Workers and Node alike.
 */
import { z } from 'zod';
import { constantTimeEqual } from './constant-time';

/** Random bytes per token: 256 bits, beyond guessing however many attempts are made. */
export const TOKEN_BYTES = 32;

/** Prefix that makes a leaked token recognisable to secret scanners and in logs. */
export const TOKEN_PREFIX = 'apv_';

/** The refusal of a token that is not this run's, whatever else is wrong with the request. */
export const INVALID_TOKEN_MESSAGE = 'The approval token is not valid for this run';

/** Longer strings cannot be tokens; refusing them early avoids hashing large inputs. */
const MAX_TOKEN_LENGTH = 256;

/** What {@link mintApprovalToken} makes: the prefix and 32 bytes in unpadded URL-safe base64. */
const TOKEN_SHAPE = /^apv_[A-Za-z0-9_-]{43}$/;

/**
 * Whether `presented` could be a token {@link mintApprovalToken} made. The Worker refuses any other
 * string before it wakes the run's object: the shape is public, so checking it early tells nobody
 * anything, and a link request with no token, or a mangled one, costs no object.
 */
export function isApprovalTokenShaped(presented: string | undefined): presented is string {
  return presented !== undefined && TOKEN_SHAPE.test(presented);
}

/**
 * What the caller stores for a run; it marks `used: true` when the token is spent. The one schema
 * its writer ({@link mintApprovalToken}) and whoever reads it back share.
 */
export const ApprovalTokenRecordSchema = z.object({
  /** SHA-256 of the token, lowercase hex. */
  hash: z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 in lowercase hex'),
  /** Epoch milliseconds after which the token is refused. */
  expires_at: z.number().finite(),
  used: z.boolean(),
});
export type ApprovalTokenRecord = z.infer<typeof ApprovalTokenRecordSchema>;

export type ApprovalTokenCheck = { ok: true } | { ok: false; code: ApprovalTokenRefusal; message: string };

export const ApprovalTokenRefusal = {
  invalid_token: 'invalid_token',
  token_expired: 'token_expired',
  token_used: 'token_used',
} as const;
export type ApprovalTokenRefusal = (typeof ApprovalTokenRefusal)[keyof typeof ApprovalTokenRefusal];

/**
 * A new token (`apv_` + 43 URL-safe base64 characters) and the record to store for it. `now` is
 * epoch milliseconds; the token expires `ttlMs` later.
 * @example
 * const { token, record } = await mintApprovalToken(now, 3_600_000);
 * const approvalUrl = `${origin}/v1/runs/${runId}/approval?token=${token}`;
 */
export async function mintApprovalToken(
  now: number,
  ttlMs: number,
): Promise<{ token: string; record: ApprovalTokenRecord }> {
  if (!Number.isFinite(now) || !(ttlMs > 0)) {
    throw new RangeError(
      `mintApprovalToken: now must be finite and ttlMs > 0, got now=${now}, ttlMs=${ttlMs}`,
    );
  }
  const token = TOKEN_PREFIX + base64Url(crypto.getRandomValues(new Uint8Array(TOKEN_BYTES)));
  return { token, record: { hash: await sha256Hex(token), expires_at: now + ttlMs, used: false } };
}

/**
 * Whether `presented` is the token behind `record` and still usable at `now` (epoch ms). A wrong
 * token is `invalid_token` whatever the record's state, so only the holder learns that a link was
 * used (`token_used`) or has run out (`token_expired`). The hashes are compared in constant time.
 * @example
 * const check = await checkApprovalToken(record, url.searchParams.get('token') ?? '', now);
 * if (!check.ok) return jsonError(c, check.code === 'invalid_token' ? 'forbidden' : 'gone', check.message);
 */
export async function checkApprovalToken(
  record: ApprovalTokenRecord,
  presented: string,
  now: number,
): Promise<ApprovalTokenCheck> {
  const plausible = presented.length > 0 && presented.length <= MAX_TOKEN_LENGTH;
  // Hash even an implausible token so a refusal takes the same time as a near miss.
  const hash = await sha256Hex(plausible ? presented : '');
  if (!plausible || !constantTimeEqual(hash, record.hash)) {
    return refuse('invalid_token', INVALID_TOKEN_MESSAGE);
  }
  if (record.used) return refuse('token_used', 'This approval link has already been used');
  if (now >= record.expires_at) {
    return refuse(
      'token_expired',
      `This approval link expired at ${new Date(record.expires_at).toISOString()}`,
    );
  }
  return { ok: true };
}

function refuse(code: ApprovalTokenRefusal, message: string): ApprovalTokenCheck {
  return { ok: false, code, message };
}

/**
 * The hash a token's record keeps: SHA-256 in lowercase hex.
 * @example await tokenHash('apv_…') // '3f0a…' (64 hex digits)
 */
export async function tokenHash(token: string): Promise<string> {
  return sha256Hex(token);
}

async function sha256Hex(s: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(s)));
  let hex = '';
  for (const b of digest) hex += b.toString(16).padStart(2, '0');
  return hex;
}

function base64Url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
