/**
 * `waitForRun`'s `timeoutS` is checked where the caller wrote it: a NaN, a string or a negative number
 * is refused naming `timeoutS`, before any request — not sent as `timeout_s=NaN` for the server to
 * refuse under a name the caller never wrote, nor (a negative one) waited a second for.
 */
import { describe, expect, it } from 'vitest';
import { createClient, EdgeplanApiError } from '../../src/client';

describe('waitForRun timeoutS', () => {
  it.each([[NaN], [-5], ['30' as unknown as number]])('refuses %s before any request', async (timeoutS) => {
    const sent: string[] = [];
    const fetch = ((input: string) => {
      sent.push(input);
      return Promise.resolve(new Response('{}', { status: 500 }));
    }) as unknown as typeof globalThis.fetch;
    const client = createClient({ baseUrl: 'http://api.test', fetch });
    const err = await client.waitForRun('run_1', { timeoutS }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EdgeplanApiError);
    expect(err).toMatchObject({ status: 0, code: 'invalid_request' });
    expect((err as Error).message).toContain('timeoutS must be a number of seconds, 0 or more');
    expect(sent).toEqual([]);
  });
});
