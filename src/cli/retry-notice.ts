/**
 * The line the CLI writes to stderr when the client waits to send a refused request again
 * (src/client/retry-policy.ts): a person learns why nothing happens for a minute, and that Ctrl-C
 * stops it; with `--json`, the same as one JSON object, so a script that logs stderr can read it.
 * Stdout is left alone either way: it holds only the command's answer.
 */
import type { RetryNotice } from '../client';

/** What each refusal the client waits out means, in a few words. */
const SAID: Record<string, string> = {
  deploy_in_progress: 'deploy in progress',
  rate_limited: 'rate limited',
  deletion_pending: 'deletion pending',
  run_newer_format: 'the run waits for a newer release',
};

/**
 * @example retryNotice({ …, error: { code: 'deploy_in_progress', … }, waitMs: 60_000 }, false)
 * // 'edgeplan: deploy in progress: retrying in 60 s (Ctrl-C to stop)\n'
 */
export function retryNotice(n: RetryNotice, json: boolean): string {
  // 1 s for Retry-After: 1, though the client adds up to a tenth to spread clients out.
  const waitS = Math.max(1, Math.round(n.waitMs / 1000));
  const { status, code } = n.error;
  if (json) {
    const retrying = { method: n.method, path: n.path, status, code, retry: n.retry, wait_s: waitS };
    return `${JSON.stringify({ retrying })}\n`;
  }
  const why = SAID[code] ?? `the server answered ${status} ${code}`;
  return `edgeplan: ${why}: retrying in ${waitS} s (Ctrl-C to stop)\n`;
}
