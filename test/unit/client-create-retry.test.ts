/**
 * The client's createRun is safe to retry (README "Client"): every attempt carries one
 * Idempotency-Key, and a request whose answer never came is sent again with it; an answer the API
 * gave is never retried. (Through the real Worker: test/workers/client-create-retry.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client';

const created = () =>
  new Response(JSON.stringify({ run_id: 'run_1', status: 'running', links: {} }), {
    status: 201,
    headers: { 'content-type': 'application/json' },
  });

/** A fetch that answers with `answers` in turn (an Error: the connection failed) and keeps each request. */
function scripted(answers: (Response | Error)[]) {
  const requests: Request[] = [];
  const fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    requests.push(new Request(input, init));
    const next = answers.shift();
    if (!next || next instanceof Error) return Promise.reject(next ?? new Error('no more answers'));
    return Promise.resolve(next);
  }) as typeof globalThis.fetch;
  return { fetch, requests };
}

const plan = { goal: 'g', steps: [{ id: 'a', action: 'demo.echo' }] };

describe('createClient().createRun', () => {
  it('sends an Idempotency-Key it made, and the same one again when the connection failed', async () => {
    const { fetch, requests } = scripted([new TypeError('socket hang up'), created()]);
    const run = await createClient({ baseUrl: 'http://api.test', fetch }).createRun({ plan });
    expect(run.run_id).toBe('run_1');
    expect(requests).toHaveLength(2);
    const keys = requests.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(await requests[1]!.text()).toBe(JSON.stringify({ plan }));
  });

  it('sends the caller’s key, and a new one for each call without one', async () => {
    const { fetch, requests } = scripted([created(), created(), created()]);
    const client = createClient({ baseUrl: 'http://api.test', fetch });
    await client.createRun({ plan }, { idempotencyKey: 'nightly-2026-11-29' });
    await client.createRun({ plan });
    await client.createRun({ plan });
    const keys = requests.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toBe('nightly-2026-11-29');
    expect(keys[1]).not.toBe(keys[2]);
  });

  it('does not send again an answer the API gave, an error included', async () => {
    const refused = new Response(
      JSON.stringify({ error: { code: 'idempotency_key_reused', message: 'other body' } }),
      { status: 422 },
    );
    const { fetch, requests } = scripted([refused]);
    const client = createClient({ baseUrl: 'http://api.test', fetch });
    await expect(client.createRun({ plan }, { idempotencyKey: 'k' })).rejects.toMatchObject({
      status: 422,
      code: 'idempotency_key_reused',
    });
    expect(requests).toHaveLength(1);
  });

  it('gives up after `retries` more tries, with the reason the last one failed', async () => {
    const { fetch, requests } = scripted([new TypeError('refused 1'), new TypeError('refused 2')]);
    const client = createClient({ baseUrl: 'http://api.test', fetch });
    await expect(client.createRun({ plan }, { retries: 1 })).rejects.toMatchObject({
      status: 0,
      code: 'unreachable',
      message: expect.stringContaining('refused 2') as string,
    });
    expect(requests).toHaveLength(2);
    const none = scripted([new TypeError('refused')]);
    await expect(
      createClient({ baseUrl: 'http://api.test', fetch: none.fetch }).createRun({ plan }, { retries: 0 }),
    ).rejects.toMatchObject({ code: 'unreachable' });
    expect(none.requests).toHaveLength(1);
  });
});
