/**
 * The `API_TOKEN` secret as a list, so a token can be rotated without an outage: set the new token
 * beside the old (`old,new`), move the clients, then remove the old. Entries are separated by commas
 * or line breaks and trimmed; empty entries are ignored. Spaces inside an entry are kept, so a single
 * token without a comma or line break means what it always did.
 */
import { constantTimeEqual } from './approval/constant-time';

/**
 * The tokens `API_TOKEN` holds, in order ([] when unset or when it holds only separators).
 * @example apiTokens('tok-old, tok-new\n'); // ['tok-old', 'tok-new']
 */
export function apiTokens(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(/[,\r\n]/)
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/**
 * Whether `given` is one of `tokens`. Every token is compared, in time that depends on neither the
 * token's length nor which one matched: both sides are SHA-256 digests (fixed length) compared in
 * constant time.
 * @example await anyTokenMatches('tok-new', apiTokens('tok-old,tok-new')); // true
 */
export async function anyTokenMatches(given: string, tokens: readonly string[]): Promise<boolean> {
  const digest = await sha256Hex(given);
  let found = false;
  for (const token of tokens) {
    // No early exit: which entry matched, and whether any did, takes the same time.
    found = constantTimeEqual(digest, await tokenDigest(token)) || found;
  }
  return found;
}

/** The configured tokens' digests, computed once per isolate rather than on every request. */
const digests = new Map<string, Promise<string>>();

function tokenDigest(token: string): Promise<string> {
  let d = digests.get(token);
  if (!d) {
    // A handful of entries at most; a secret changed by a deploy comes with a new isolate.
    if (digests.size >= 16) digests.clear();
    digests.set(token, (d = sha256Hex(token)));
  }
  return d;
}

async function sha256Hex(s: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(s)));
  let hex = '';
  for (const b of digest) hex += b.toString(16).padStart(2, '0');
  return hex;
}
