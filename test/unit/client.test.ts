import { describe, expect, it } from 'vitest';
import { createClient, EdgeplanApiError } from '../../src/client';

/** A fetch that records requests and answers from a table. */
function scripted(answers: Record<string, { status: number; body: unknown }>) {
  const seen: { method: string; url: string; auth: string | null; body: unknown }[] = [];
  const fetch = (input: string, init?: RequestInit) => {
    const url = input;
    const method = init?.method ?? 'GET';
    const headers = new Headers(init?.headers);
    seen.push({
      method,
      url,
      auth: headers.get('authorization'),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    const a = answers[`${method} ${url}`] ?? {
      status: 404,
      body: { error: { code: 'not_found', message: 'no' } },
    };
    return Promise.resolve(new Response(JSON.stringify(a.body), { status: a.status }));
  };
  return { fetch: fetch as unknown as typeof globalThis.fetch, seen };
}

describe('edgeplan/client', () => {
  it('creates a run, reads it and its events, with the bearer token', async () => {
    const { fetch, seen } = scripted({
      'POST http://api.test/v1/runs': {
        status: 201,
        body: { run_id: 'run_1', status: 'running', links: {} },
      },
      'GET http://api.test/v1/runs/run_1': { status: 200, body: { run_id: 'run_1', status: 'completed' } },
      'GET http://api.test/v1/runs/run_1/events?after=2': {
        status: 200,
        body: { events: [{ seq: 3, event_type: 'RunCompleted' }] },
      },
    });
    const client = createClient({ baseUrl: 'http://api.test/', token: 't0k', fetch });
    const plan = { goal: 'g', steps: [{ id: 'a', action: 'demo.echo' }] };
    expect((await client.createRun({ plan })).run_id).toBe('run_1');
    expect((await client.getRun('run_1')).status).toBe('completed');
    expect((await client.events('run_1', { after: 2 })).map((e) => e.seq)).toEqual([3]);
    expect(seen[0]).toEqual({
      method: 'POST',
      url: 'http://api.test/v1/runs',
      auth: 'Bearer t0k',
      body: { plan },
    });
  });

  it('throws the API error with its status and code', async () => {
    const { fetch } = scripted({});
    const client = createClient({ baseUrl: 'http://api.test', fetch });
    const err = await client.getRun('nope').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EdgeplanApiError);
    expect(err).toMatchObject({ status: 404, code: 'not_found', message: 'no' });
  });
});
