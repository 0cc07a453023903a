/**
 * The `Idempotency-Key` request header of `POST /v1/runs` (IETF httpapi draft; Stripe's behaviour):
 * its syntax, and the run id a key names. The run id is derived from the caller's scope and the key,
 * so every request with the key — a retry, or two sent at once — reaches the same run's object, where
 * exactly one run is created (plan-run.ts `create`).
 */
import { apiTokens } from '../api-tokens';

/** The request header that carries the key, and the response header that says an answer is a replay. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** The longest key taken, in characters (Stripe's limit). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** What a key may hold: printable ASCII, inner spaces included (a header value carries nothing else). */
const KEY_CHARS = /^[\x20-\x7e]+$/;

export type ParsedKey = { ok: true; key: string | undefined } | { ok: false; message: string };

/**
 * The key the header carries: as sent, or — as the IETF draft writes it, a Structured Field string —
 * inside double quotes (`"8e03978e-…"` and `8e03978e-…` are the same key). No header: no key.
 * @example parseIdempotencyKey('"abc"') // { ok: true, key: 'abc' }
 */
export function parseIdempotencyKey(header: string | undefined): ParsedKey {
  if (header === undefined) return { ok: true, key: undefined };
  // Spaces and tabs only, as HTTP trims a header value: trim() would also drop U+00A0 (a header may
  // carry it) and U+2028 (an MCP idempotency_key may), making "\u00a0k" the key "k" unseen.
  let key = header.replace(/^[ \t]+|[ \t]+$/g, '');
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = unquote(key.slice(1, -1));
  const fix = `send 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters, such as a UUID v4 generated for the request and sent again with each retry of it`;
  if (key === '') return { ok: false, message: `The ${IDEMPOTENCY_KEY_HEADER} header is empty: ${fix}` };
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH)
    return {
      ok: false,
      message: `The ${IDEMPOTENCY_KEY_HEADER} header is ${key.length} characters long, over the limit of ${MAX_IDEMPOTENCY_KEY_LENGTH}: ${fix}`,
    };
  if (!KEY_CHARS.test(key))
    return {
      ok: false,
      message: `The ${IDEMPOTENCY_KEY_HEADER} header holds a character outside printable ASCII: ${fix}`,
    };
  return { ok: true, key };
}

/** A Structured Field string's content: `\"` and `\\` stand for `"` and `\`. */
function unquote(s: string): string {
  return s.replace(/\\(["\\])/g, '$1');
}

/**
 * Whose keys a request's key is among: the bearer token it was let in with (by digest), so two callers
 * never meet in one run through the same key. A deployment without API_TOKEN has one caller.
 * @example await callerScope('Bearer tok-a', 'tok-a,tok-b') // 'token:5f3c…'
 */
export async function callerScope(authorization: string | undefined, apiToken: string | undefined) {
  if (apiTokens(apiToken).length === 0) return 'open';
  const token = /^Bearer +(\S(?:.*\S)?) *$/i.exec(authorization ?? '')?.[1] ?? '';
  return `token:${await sha256Hex(token)}`;
}

/**
 * The id of the run a key creates: `run_` and 32 hex digits, as a random run id looks. Prefixed so no
 * key can name the id of a child run (engine/child-run.ts hashes `<run>:<step>:<attempt>`).
 * @example await idempotentRunId('open', 'order-42') // 'run_9c1e…'
 */
export async function idempotentRunId(scope: string, key: string): Promise<string> {
  return `run_${(await sha256Hex(`idempotency-key\n${scope}\n${key}`)).slice(0, 32)}`;
}

/**
 * The digest a request body is compared by: of its JSON with object keys sorted, so a retry that
 * writes the same body with its keys in another order is the same request.
 * @example await requestFingerprint({ b: 1, a: 2 }) === await requestFingerprint({ a: 2, b: 1 }) // true
 */
export async function requestFingerprint(body: unknown): Promise<string> {
  return sha256Hex(JSON.stringify(body, (_k, v: unknown) => (isPlainObject(v) ? sorted(v) : v)));
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own properties only, `__proto__` included as data (fromEntries defines, never assigns). */
function sorted(v: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, v[k]]),
  );
}

async function sha256Hex(s: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(s)));
  let hex = '';
  for (const b of digest) hex += b.toString(16).padStart(2, '0');
  return hex;
}
