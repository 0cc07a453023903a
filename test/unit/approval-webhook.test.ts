import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { EdgeplanError } from '../../src/errors';
import {
  WebhookError,
  sendApprovalWebhook,
  signWebhook,
  verifyWebhook,
  webhookSecrets,
  type ApprovalWebhookPayload,
} from '../../src/approval/webhook';
import type { Plan } from '../../src/plan/model';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER_SECRET = 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=';
const NOW = Date.parse('2026-01-01T12:00:00Z');
const BODY = JSON.stringify({ type: 'plan.approval_requested', run_id: 'run_1' });

function refusal(fn: () => unknown): WebhookError {
  try {
    fn();
  } catch (err) {
    if (err instanceof WebhookError) return err;
    throw err;
  }
  throw new Error('expected a WebhookError, nothing was thrown');
}

const plan: Plan = {
  id: 'plan_1',
  version: 2,
  goal: 'g',
  strategy: 'manual',
  steps: [{ id: 'a', description: 'a', action: 'demo.echo', parameters: {}, dependencies: [] }],
  created_at: '2026-01-01T00:00:00.000Z',
};
const payload: ApprovalWebhookPayload = {
  type: 'plan.approval_requested',
  run_id: 'run_1',
  plan,
  plan_version: 2,
  run_url: 'https://edge.example/v1/runs/run_1',
  approval_url: 'https://edge.example/v1/runs/run_1/approval?token=apv_x',
  expires_at: '2026-01-01T13:00:00.000Z',
  default_action: 'reject',
  last_approved_version: null,
  changes: null,
};

describe('signWebhook', () => {
  it('produces the three Standard Webhooks headers, the timestamp in whole seconds', () => {
    const h = signWebhook(SECRET, 'msg_1', NOW + 999, BODY);
    expect(h['webhook-id']).toBe('msg_1');
    expect(h['webhook-timestamp']).toBe(String(NOW / 1000));
    expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });

  it('signs what the standardwebhooks package verifies', () => {
    const headers = signWebhook(SECRET, 'msg_1', Date.now(), BODY);
    expect(new Webhook(SECRET).verify(BODY, headers)).toEqual(JSON.parse(BODY));
  });

  it('matches the signature computed independently with Web Crypto over "id.timestamp.body"', async () => {
    const h = signWebhook(SECRET, 'msg_1', NOW, BODY);
    const keyBytes = Uint8Array.from(atob(SECRET.slice('whsec_'.length)), (c) => c.charCodeAt(0));
    const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
    ]);
    const mac = await crypto.subtle.sign(
      'HMAC',
      key,
      new TextEncoder().encode(`msg_1.${NOW / 1000}.${BODY}`),
    );
    expect(h['webhook-signature']).toBe(`v1,${btoa(String.fromCharCode(...new Uint8Array(mac)))}`);
  });

  it('signs and verifies without a Buffer global, as in Workers without nodejs_compat', () => {
    const g = globalThis as { Buffer?: unknown };
    const saved = g.Buffer;
    delete g.Buffer;
    try {
      const h = signWebhook(SECRET, 'msg_1', NOW, BODY);
      expect(verifyWebhook(SECRET, h, BODY, { now: NOW })).toEqual(JSON.parse(BODY));
    } finally {
      g.Buffer = saved;
    }
  });

  it('refuses a secret that is not base64 without echoing it', () => {
    const err = (() => {
      try {
        signWebhook('whsec_not*base64!', 'msg_1', NOW, BODY);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(EdgeplanError);
    expect((err as EdgeplanError).code).toBe('invalid_webhook_secret');
    expect((err as EdgeplanError).message).not.toContain('not*base64!');
  });
});

describe('WEBHOOK_SECRET listing several secrets (a rotation)', () => {
  const BOTH = `${SECRET},${OTHER_SECRET}`;

  it('reads the secrets separated by commas, spaces or line breaks, each once', () => {
    expect(webhookSecrets(undefined)).toEqual([]);
    expect(webhookSecrets(' , \n')).toEqual([]);
    expect(webhookSecrets(SECRET)).toEqual([SECRET]);
    expect(webhookSecrets(` ${SECRET} ,\n${OTHER_SECRET}\r\n${SECRET}`)).toEqual([SECRET, OTHER_SECRET]);
    expect(webhookSecrets(`${SECRET} ${OTHER_SECRET}`)).toEqual([SECRET, OTHER_SECRET]);
  });

  it('signs with each, in order, space-separated as Standard Webhooks lists signatures', () => {
    const h = signWebhook(BOTH, 'msg_1', NOW, BODY);
    const one = signWebhook(SECRET, 'msg_1', NOW, BODY)['webhook-signature'];
    const other = signWebhook(OTHER_SECRET, 'msg_1', NOW, BODY)['webhook-signature'];
    expect(one).not.toBe(other);
    expect(h['webhook-signature']).toBe(`${one} ${other}`);
  });

  it('is accepted by a receiver holding either secret alone (the standardwebhooks package)', () => {
    const headers = signWebhook(`${SECRET}\n${OTHER_SECRET}`, 'msg_1', Date.now(), BODY);
    expect(new Webhook(SECRET).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    expect(new Webhook(OTHER_SECRET).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    const third = 'whsec_' + btoa('a third secret, not listed');
    expect(() => new Webhook(third).verify(BODY, headers)).toThrow('No matching signature found');
  });

  it('verifies with a list as the receiver’s secret: a signature by any listed one will do', () => {
    const byOther = signWebhook(OTHER_SECRET, 'msg_1', NOW, BODY);
    expect(verifyWebhook(BOTH, byOther, BODY, { now: NOW })).toEqual(JSON.parse(BODY));
    const third = signWebhook('whsec_' + btoa('a third secret, not listed'), 'msg_1', NOW, BODY);
    expect(refusal(() => verifyWebhook(BOTH, third, BODY, { now: NOW })).code).toBe('bad_signature');
  });

  it('names a bad entry by its place, never its text, and refuses a value of separators only', () => {
    const thrown = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return e as EdgeplanError;
      }
      throw new Error('expected an EdgeplanError, nothing was thrown');
    };
    const bad = thrown(() => signWebhook(`${SECRET},whsec_not*base64!`, 'msg_1', NOW, BODY));
    expect(bad).toBeInstanceOf(EdgeplanError);
    expect(bad.code).toBe('invalid_webhook_secret');
    expect(bad.message).toMatch(/^WEBHOOK_SECRET's entry 2 of 2 must be "whsec_" followed by/);
    expect(bad.message).not.toContain('not*base64!');
    expect(bad.message).not.toContain(SECRET.slice('whsec_'.length));
    const empty = thrown(() => signWebhook(' ,\n', 'msg_1', NOW, BODY));
    expect(empty.code).toBe('invalid_webhook_secret');
    expect(empty.message).toMatch(/holds no secret, only separators/);
  });
});

describe('verifyWebhook', () => {
  const signed = () => signWebhook(SECRET, 'msg_1', NOW, BODY);

  it('returns the parsed body of a webhook signed with the secret', () => {
    expect(verifyWebhook(SECRET, signed(), BODY, { now: NOW })).toEqual(JSON.parse(BODY));
  });

  it('reads headers from a Headers object and from a record in any case', () => {
    const h = signed();
    expect(verifyWebhook(SECRET, new Headers(h), BODY, { now: NOW })).toBeDefined();
    const upper = {
      'Webhook-Id': h['webhook-id'],
      'WEBHOOK-TIMESTAMP': h['webhook-timestamp'],
      'Webhook-Signature': h['webhook-signature'],
    };
    expect(verifyWebhook(SECRET, upper, BODY, { now: NOW })).toBeDefined();
  });

  it('accepts a webhook signed by the standardwebhooks package', () => {
    const at = new Date(NOW);
    const headers = {
      'webhook-id': 'msg_pkg',
      'webhook-timestamp': String(NOW / 1000),
      'webhook-signature': new Webhook(SECRET).sign('msg_pkg', at, BODY),
    };
    expect(verifyWebhook(SECRET, headers, BODY, { now: NOW })).toEqual(JSON.parse(BODY));
  });

  it('accepts any matching v1 signature among several, as during key rotation', () => {
    const h = signed();
    const rotated = { ...h, 'webhook-signature': `v1,AAAA v2,zzz ${h['webhook-signature']}` };
    expect(verifyWebhook(SECRET, rotated, BODY, { now: NOW })).toBeDefined();
  });

  it('refuses a forged signature with bad_signature', () => {
    const forged = { ...signed(), 'webhook-signature': `v1,${btoa('x'.repeat(32))}` };
    expect(refusal(() => verifyWebhook(SECRET, forged, BODY, { now: NOW })).code).toBe('bad_signature');
  });

  it('refuses a webhook signed with another secret with bad_signature', () => {
    const h = signWebhook(OTHER_SECRET, 'msg_1', NOW, BODY);
    expect(refusal(() => verifyWebhook(SECRET, h, BODY, { now: NOW })).code).toBe('bad_signature');
  });

  it('refuses a tampered body with bad_signature', () => {
    const tampered = BODY.replace('run_1', 'run_2');
    expect(refusal(() => verifyWebhook(SECRET, signed(), tampered, { now: NOW })).code).toBe('bad_signature');
  });

  it('refuses a signature moved to another webhook id with bad_signature', () => {
    const moved = { ...signed(), 'webhook-id': 'msg_2' };
    expect(refusal(() => verifyWebhook(SECRET, moved, BODY, { now: NOW })).code).toBe('bad_signature');
  });

  it('refuses a signature under a version other than v1', () => {
    const h = signed();
    const v2 = { ...h, 'webhook-signature': h['webhook-signature'].replace(/^v1,/, 'v2,') };
    expect(refusal(() => verifyWebhook(SECRET, v2, BODY, { now: NOW })).code).toBe('bad_signature');
  });

  it('refuses a timestamp more than five minutes old with stale_timestamp', () => {
    const err = refusal(() => verifyWebhook(SECRET, signed(), BODY, { now: NOW + 301_000 }));
    expect(err.code).toBe('stale_timestamp');
    expect(err.message).toContain('301 s old; the limit is 300 s');
  });

  it('refuses a timestamp more than five minutes in the future with stale_timestamp', () => {
    const err = refusal(() => verifyWebhook(SECRET, signed(), BODY, { now: NOW - 301_000 }));
    expect(err.code).toBe('stale_timestamp');
    expect(err.message).toContain('in the future');
  });

  it('accepts a replay inside the tolerance window and refuses it once the window has passed', () => {
    // Signatures carry no nonce: within the window a receiver drops replays by remembering webhook-ids.
    const h = signed();
    expect(verifyWebhook(SECRET, h, BODY, { now: NOW + 300_000 })).toBeDefined();
    expect(refusal(() => verifyWebhook(SECRET, h, BODY, { now: NOW + 301_000 })).code).toBe(
      'stale_timestamp',
    );
  });

  it('applies a custom tolerance', () => {
    expect(
      refusal(() => verifyWebhook(SECRET, signed(), BODY, { now: NOW + 61_000, toleranceS: 60 })).code,
    ).toBe('stale_timestamp');
    expect(verifyWebhook(SECRET, signed(), BODY, { now: NOW + 59_000, toleranceS: 60 })).toBeDefined();
  });

  it('refuses missing headers with missing_headers, naming each one', () => {
    const { 'webhook-signature': _sig, 'webhook-id': _id, ...onlyTimestamp } = signed();
    const err = refusal(() => verifyWebhook(SECRET, onlyTimestamp, BODY, { now: NOW }));
    expect(err.code).toBe('missing_headers');
    expect(err.message).toBe('Missing webhook header(s): webhook-id, webhook-signature');
    expect(refusal(() => verifyWebhook(SECRET, new Headers(), BODY, { now: NOW })).code).toBe(
      'missing_headers',
    );
  });

  it('refuses a timestamp that is not whole seconds with missing_headers', () => {
    const h = { ...signed(), 'webhook-timestamp': `${NOW / 1000}abc` };
    const err = refusal(() => verifyWebhook(SECRET, h, BODY, { now: NOW }));
    expect(err.code).toBe('missing_headers');
    expect(err.message).toContain('whole seconds');
  });

  it('refuses a correctly signed body that is not JSON with invalid_payload', () => {
    const h = signWebhook(SECRET, 'msg_1', NOW, 'not json');
    expect(refusal(() => verifyWebhook(SECRET, h, 'not json', { now: NOW })).code).toBe('invalid_payload');
  });

  it('raises errors that are EdgeplanErrors and not retryable', () => {
    const err = refusal(() => verifyWebhook(SECRET, {}, BODY, { now: NOW }));
    expect(err).toBeInstanceOf(EdgeplanError);
    expect(err.retryable).toBe(false);
    expect(err.toJSON()).toEqual({ code: 'missing_headers', message: expect.any(String) });
  });
});

type Sent = { url: string; init: RequestInit };

/** A fetch that records each call; sendApprovalWebhook always passes a string URL and body. */
function recordingFetch(respond: () => Response | Promise<Response>): { fetch: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fake: typeof fetch = (input, init) => {
    sent.push({ url: input as string, init: init ?? {} });
    return Promise.resolve(respond());
  };
  return { fetch: fake, sent };
}

describe('sendApprovalWebhook', () => {
  const base = { url: 'https://hooks.example/approve?key=k', secret: SECRET, payload, id: 'msg_9', now: NOW };

  it('POSTs the JSON payload with headers a receiver verifies', async () => {
    const { fetch, sent } = recordingFetch(() => new Response(null, { status: 204 }));
    expect(await sendApprovalWebhook({ ...base, fetch })).toEqual({ ok: true, status: 204 });

    const [req] = sent;
    expect(req?.url).toBe(base.url);
    expect(req?.init.method).toBe('POST');
    expect(req?.init.redirect).toBe('manual');
    const headers = new Headers(req?.init.headers);
    expect(headers.get('content-type')).toBe('application/json');
    expect(verifyWebhook(SECRET, headers, req?.init.body as string, { now: NOW })).toEqual(payload);
  });

  it('reports a non-2xx answer without throwing, retryable only for 5xx, 408 and 429', async () => {
    const cases = [
      [500, true],
      [503, true],
      [429, true],
      [408, true],
      [400, false],
      [410, false],
    ] as const;
    for (const [status, retryable] of cases) {
      const { fetch } = recordingFetch(() => new Response('nope', { status }));
      const r = await sendApprovalWebhook({ ...base, fetch });
      expect(r).toEqual({
        ok: false,
        status,
        error: {
          code: 'http_error',
          message: `Webhook to https://hooks.example answered ${status}`,
          retryable,
        },
      });
    }
  });

  it('does not follow a redirect and names where it pointed', async () => {
    const { fetch, sent } = recordingFetch(
      () => new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/' } }),
    );
    const r = await sendApprovalWebhook({ ...base, fetch });
    expect(sent).toHaveLength(1);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.message).toContain('redirect to http://169.254.169.254/ not followed');
  });

  it('gives up after the timeout and reports it as retryable', async () => {
    const hanging = ((_: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason as Error));
      })) as typeof fetch;
    const r = await sendApprovalWebhook({ ...base, fetch: hanging, timeoutMs: 20 });
    expect(r).toEqual({
      ok: false,
      status: 0,
      error: {
        code: 'timeout',
        message: 'Webhook to https://hooks.example got no response within 20 ms',
        retryable: true,
      },
    });
  });

  it('reports a network failure as retryable, without the URL query that may hold a key', async () => {
    const failing = (() => Promise.reject(new TypeError('connection refused'))) as typeof fetch;
    const r = await sendApprovalWebhook({ ...base, fetch: failing });
    expect(r).toEqual({
      ok: false,
      status: 0,
      error: {
        code: 'network_error',
        message: 'Webhook to https://hooks.example failed: connection refused',
        retryable: true,
      },
    });
  });

  it('reports an id that cannot be a header and a payload JSON cannot hold, without throwing', async () => {
    const { fetch, sent } = recordingFetch(() => new Response(null));
    const badId = await sendApprovalWebhook({ ...base, fetch, id: 'msg 1\n' });
    const circular = { ...payload, plan: { ...plan, metadata: {} as Record<string, unknown> } };
    circular.plan.metadata = { self: circular };
    const badPayload = await sendApprovalWebhook({ ...base, fetch, payload: circular });
    expect(!badId.ok && badId.error.code).toBe('invalid_webhook_id');
    expect(!badPayload.ok && badPayload.error.code).toBe('invalid_payload');
    expect(sent).toHaveLength(0);
  });

  it('refuses a URL that is not http(s) and a bad secret before sending anything', async () => {
    const { fetch, sent } = recordingFetch(() => new Response(null));
    const badUrl = await sendApprovalWebhook({ ...base, fetch, url: 'file:///etc/passwd' });
    const badSecret = await sendApprovalWebhook({ ...base, fetch, secret: 'whsec_' });
    expect(!badUrl.ok && badUrl.error.code).toBe('invalid_url');
    expect(!badSecret.ok && badSecret.error).toMatchObject({
      code: 'invalid_webhook_secret',
      retryable: false,
    });
    expect(sent).toHaveLength(0);
  });
});
