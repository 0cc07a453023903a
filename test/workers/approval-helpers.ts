/** Runs awaiting approval, with the token of their link taken from the webhook they send. */
import { expect, vi } from 'vitest';
import { startRun, waitForRun, type Json } from './helpers';

/** Where the runs' webhooks go (answered here, never reached). */
export const APPROVER_URL = 'https://approver.example.com/hook';

/**
 * Starts `plan` with `config` (which must name {@link APPROVER_URL} as its webhook) and returns the
 * run and its link's token once it awaits approval. Mocks `fetch`: restore mocks after each test.
 */
export async function runAwaitingApproval(
  plan: unknown,
  config: unknown,
  input?: unknown,
): Promise<{ runId: string; token: string }> {
  const sent: string[] = [];
  const real = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const req = new Request(input, init);
    if (!req.url.startsWith(new URL(APPROVER_URL).origin)) return real(input, init);
    sent.push(await req.text());
    return new Response('ok');
  });
  const runId = await startRun(plan, config, input);
  await waitForRun(runId, (r: Json) => r.status === 'awaiting_approval');
  await vi.waitFor(() => expect(sent).toHaveLength(1));
  const url = new URL((JSON.parse(sent[0]!) as Json).approval_url as string);
  return { runId, token: url.searchParams.get('token')! };
}
