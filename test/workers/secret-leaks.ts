/**
 * For the tests that a secret-bearing variable is never quoted (mcp-config-secrets.test.ts,
 * secret-vars-unquoted.test.ts): what the Worker logged and answered, and which pieces of a secret
 * that text holds.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { vi } from 'vitest';
import worker from '../../src/worker';

/** A token no redaction pattern knows the shape of (not `sk-…`, `Bearer …`, `token=…`). */
export const SECRET = 'Zq7vK2mXw9pL4tRbN8cY';

/** Every run of 5 characters of `secret` that `text` holds: none, when nothing of it is quoted. */
export function pieces(text: string, secret = SECRET): string[] {
  return [...Array(secret.length - 4).keys()]
    .map((i) => secret.slice(i, i + 5))
    .filter((p) => text.includes(p));
}

/** Everything the Worker logs while `fn` runs (every console method, every argument), and its result. */
export async function logged(fn: () => Promise<string>): Promise<{ lines: string; answers: string }> {
  const lines: string[] = [];
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const)
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
    });
  try {
    const answers = await fn();
    return { lines: lines.join('\n'), answers };
  } finally {
    vi.restoreAllMocks();
  }
}

/** A request as the Worker deployed with `more` set answers it: `METHOD path → status body`. */
export type Asked = [method: string, path: string, body?: unknown, headers?: Record<string, string>];

/** The answers of the Worker deployed with `more` to `requests`, one line each. */
export async function ask(more: Record<string, unknown>, requests: readonly Asked[]): Promise<string> {
  const out: string[] = [];
  for (const [method, path, body, headers = {}] of requests) {
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`http://edgeplan.test${path}`, {
        method,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body ? { body: JSON.stringify(body) } : {}),
      }),
      { ...env, ...more },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    out.push(`${method} ${path} → ${res.status} ${await res.text()}`);
  }
  return out.join('\n');
}
