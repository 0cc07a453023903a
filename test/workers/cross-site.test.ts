/**
 * A page on another site cannot make a browser act on a run with credentials the page did not send
 * (src/http/middleware/cross-site.ts). This project's Worker is open (ALLOW_ANONYMOUS), as `npm start`
 * is — the ambient credential a local server gives any page its user visits; the Access cookie is
 * another. Requests are what browsers send: a form of no fields, or `fetch(…, {mode: 'no-cors'})`.
 */
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, startRun } from './helpers';

const slow = { goal: 'slow', steps: [{ id: 'a', action: 'demo.sleep', parameters: { ms: 60_000 } }] };

function browser(method: string, path: string, headers: Record<string, string>): Promise<Response> {
  return exports.default.fetch(new Request(`http://edgeplan.test${path}`, { method, headers }));
}

/** A form of no fields on https://evil.example, posted to this Worker. */
const fromEvilForm = {
  Origin: 'https://evil.example',
  'Sec-Fetch-Site': 'cross-site',
  'Sec-Fetch-Mode': 'navigate',
  'Content-Type': 'application/x-www-form-urlencoded',
};

describe('a request a page on another site makes a browser send', () => {
  it('cannot cancel or retry a run: 403 cross_site_request naming the origin, the run goes on', async () => {
    const id = await startRun(slow);
    const cancel = await browser('POST', `/v1/runs/${id}/cancel`, fromEvilForm);
    expect(cancel.status).toBe(403);
    expect(await cancel.json()).toMatchObject({
      error: { code: 'cross_site_request', details: { origin: 'https://evil.example' } },
    });
    const noCors = await browser('POST', `/v1/runs/${id}/retry`, {
      Origin: 'https://evil.example',
      'Sec-Fetch-Site': 'same-site',
      'Sec-Fetch-Mode': 'no-cors',
    });
    expect(noCors.status).toBe(403);
    expect((await api('GET', `/v1/runs/${id}`)).body.status).toBe('running');
    await api('POST', `/v1/runs/${id}/cancel`);
  });

  it('cannot open a run’s WebSocket without a token', async () => {
    const id = await startRun(slow);
    const ws = await browser('GET', `/v1/runs/${id}/ws`, {
      Origin: 'https://evil.example',
      'Sec-Fetch-Site': 'cross-site',
      'Sec-Fetch-Mode': 'websocket',
      Upgrade: 'websocket',
      'Sec-WebSocket-Protocol': 'edgeplan',
    });
    expect(ws.status).toBe(403);
    await api('POST', `/v1/runs/${id}/cancel`);
  });

  it('is taken from the Worker’s own pages, with a token of the page’s own, and from clients that are not browsers', async () => {
    const a = await startRun(slow);
    const own = await browser('POST', `/v1/runs/${a}/cancel`, {
      Origin: 'http://edgeplan.test',
      'Sec-Fetch-Site': 'same-origin',
    });
    expect(own.status).toBe(200);
    const b = await startRun(slow);
    const withToken = await browser('POST', `/v1/runs/${b}/cancel`, {
      ...fromEvilForm,
      Authorization: 'Bearer any',
    });
    // The token decides (this open Worker takes any); the guard did not refuse it.
    expect(withToken.status).toBe(200);
    const c = await startRun(slow);
    expect((await api('POST', `/v1/runs/${c}/cancel`)).status).toBe(200);
    const read = await browser('GET', `/v1/runs/${c}`, { ...fromEvilForm });
    expect(read.status).toBe(200);
  });
});
