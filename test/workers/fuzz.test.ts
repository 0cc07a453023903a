/**
 * Fuzz: about a thousand hostile requests, from a seeded PRNG, against every route of the app through
 * the Worker's entrypoint. Whatever the request, the answer is below 500 and, from 400 up, the error
 * envelope with a string code. A failure lists each offending request (the seed replays them all).
 */
import { env, exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app';
import {
  API_TOKEN,
  AUTH_HEADERS,
  BOGUS_IDS,
  BOGUS_TOKENS,
  CONFIG_NUMBERS,
  configBody,
  encode,
  hostileBody,
  hostileQuery,
  NUMBERS,
  prng,
  type FuzzRequest,
  type Rng,
} from './fuzz-requests';
import { startRun, waitForRun } from './helpers';

const SEED = 2025_11_17;
const REQUESTS = 1000;

type Route = {
  method: 'GET' | 'POST';
  path: (id: string, rng: Rng) => string;
  /** Query parameters the route reads. */
  query?: readonly string[];
  /** Which valid body (fuzz-requests VALID_BODIES) a POST starts from. */
  body?: string;
};

const version = (rng: Rng) =>
  ['0', '1', '2', '-1', '1.5', 'x', '1e999', '99999999999999999999'][Math.floor(rng() * 8)];

/** Every route the app registers (src/http/app.ts, src/http/routes/*). */
const ROUTES: Route[] = [
  { method: 'GET', path: () => '/health' },
  { method: 'GET', path: () => '/' },
  { method: 'GET', path: () => '/openapi.json' },
  { method: 'GET', path: () => '/v1/tools' },
  { method: 'POST', path: () => '/v1/plans', body: 'plans' },
  { method: 'POST', path: () => '/v1/plans/validate', body: 'validate' },
  { method: 'POST', path: () => '/v1/runs', body: 'runs' },
  { method: 'GET', path: () => '/v1/runs', query: ['status', 'limit', 'cursor'] },
  { method: 'GET', path: (id) => `/v1/runs/${id}` },
  { method: 'GET', path: (id) => `/v1/runs/${id}/status`, query: ['include_details', 'include_completed'] },
  { method: 'GET', path: (id) => `/v1/runs/${id}/events`, query: ['after', 'limit'] },
  { method: 'GET', path: (id) => `/v1/runs/${id}/state`, query: ['at'] },
  { method: 'GET', path: (id) => `/v1/runs/${id}/ws`, query: ['after'] },
  { method: 'GET', path: (id) => `/v1/runs/${id}/plans` },
  { method: 'GET', path: (id, rng) => `/v1/runs/${id}/plans/${version(rng)}` },
  { method: 'GET', path: (id, rng) => `/v1/runs/${id}/plans/${version(rng)}/diff/${version(rng)}` },
  { method: 'POST', path: (id) => `/v1/runs/${id}/cancel`, body: 'cancel' },
  { method: 'POST', path: (id) => `/v1/runs/${id}/retry`, body: 'retry' },
  { method: 'POST', path: (id) => `/v1/runs/${id}/approval`, body: 'approval' },
  { method: 'POST', path: (id) => `/v1/runs/${id}/input`, body: 'input' },
  { method: 'POST', path: (id) => `/v1/runs/${id}/replan`, body: 'replan' },
  { method: 'POST', path: (id) => `/v1/runs/${id}/rollback`, body: 'rollback' },
];

const OTHER_METHODS = ['PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The app as the Worker serves it, for requests sent with an API token set. */
const app = createApp();

/** Runs the requests can name: one waiting for approval, one finished. */
const realRuns: string[] = [];

function hostileRequest(rng: Rng): FuzzRequest {
  const pickFrom = <T>(items: readonly T[]) => items[Math.floor(rng() * items.length)]!;
  const route = pickFrom(ROUTES);
  const id = rng() < 0.5 ? pickFrom(realRuns) : pickFrom(BOGUS_IDS);
  const base = route.path(id, rng);
  let path = base + hostileQuery(rng, route.query ?? []);
  if (route.body === 'approval' && rng() < 0.6) {
    path += `${path.includes('?') ? '&' : '?'}token=${encode(pickFrom(BOGUS_TOKENS))}`;
  }
  const method = rng() < 0.04 ? pickFrom(OTHER_METHODS) : route.method;
  const headers: Record<string, string> = {};
  if (base.endsWith('/ws') && rng() < 0.5) headers.Upgrade = 'websocket';
  const withApiToken = rng() < 0.2;
  const auth = withApiToken ? pickFrom(AUTH_HEADERS) : undefined;
  if (auth !== undefined) headers.Authorization = auth;
  if (method === 'GET') return { method, path, headers, withApiToken };
  const { body, headers: bodyHeaders } = hostileBody(rng, route.body ?? 'cancel');
  return { method, path, headers: { ...headers, ...bodyHeaders }, body, withApiToken };
}

/** The answer's status and what is wrong with it, or null. */
async function check(req: FuzzRequest): Promise<{ status: number; problem: string | null }> {
  const { method, headers, body } = req;
  const request = new Request(`http://edgeplan.test${req.path}`, { method, headers, body });
  const res = req.withApiToken
    ? await app.fetch(request, { ...env, API_TOKEN })
    : await exports.default.fetch(request);
  return { status: res.status, problem: await problemWith(res) };
}

async function problemWith(res: Response): Promise<string | null> {
  if (res.webSocket) {
    res.webSocket.accept();
    res.webSocket.close(1000, 'fuzz');
    return res.status === 101 ? null : `${res.status} with a WebSocket`;
  }
  const text = await res.text();
  if (res.status >= 500) return `${res.status} ${text.slice(0, 300)}`;
  if (res.status < 400) return null;
  let code: unknown;
  let message: unknown;
  try {
    ({ code, message } = (JSON.parse(text) as { error: { code: unknown; message: unknown } }).error);
  } catch {
    return `${res.status} without the error envelope: ${text.slice(0, 300)}`;
  }
  const enveloped =
    typeof code === 'string' && /^[a-z_]+$/.test(code) && typeof message === 'string' && message !== '';
  return enveloped ? null : `${res.status} with a malformed envelope: ${text.slice(0, 300)}`;
}

const describeRequest = (r: FuzzRequest) =>
  `${r.method} ${r.path.slice(0, 200)} ${JSON.stringify(r.headers)} ${r.body === undefined ? '(no body)' : r.body.slice(0, 200)}${(r.body?.length ?? 0) > 200 ? `… (${r.body?.length} chars)` : ''}`;

describe('fuzz', () => {
  beforeAll(async () => {
    const plan = {
      goal: 'fuzz target',
      steps: [
        { id: 'a', action: 'demo.echo', parameters: { id: 'a' } },
        { id: 'b', action: 'demo.echo', parameters: { id: 'b' }, dependencies: ['a'] },
      ],
    };
    const waiting = await startRun(plan, { require_plan_approval: true });
    const done = await startRun(plan);
    await waitForRun(waiting, (r) => r.status === 'awaiting_approval');
    await waitForRun(done);
    realRuns.push(waiting, done);
  });

  it(`answers ${REQUESTS} hostile requests below 500, errors in the envelope (seed ${SEED})`, async () => {
    const rng = prng(SEED);
    const problems: string[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const req = hostileRequest(rng);
      const { status, problem } = await check(req);
      statuses.push(status);
      if (problem) problems.push(`#${i} ${describeRequest(req)} → ${problem}`);
    }
    expect(problems).toEqual([]);
    // The requests reach past the first checks: some succeed, and refusals are of many kinds.
    expect(statuses.filter((s) => s < 300).length).toBeGreaterThan(REQUESTS / 20);
    expect(new Set(statuses.filter((s) => s >= 400)).size).toBeGreaterThanOrEqual(6);
  }, 120_000);

  it('answers every numeric config field set to a hostile number below 500, for runs that start', async () => {
    const problems: string[] = [];
    for (const path of CONFIG_NUMBERS) {
      for (const [i, value] of [...NUMBERS, 'NaN', null].entries()) {
        // Half wait for approval (a deadline from approval.timeout_s), half start their steps.
        const body = configBody(path, value, i % 2 === 0);
        const req = {
          method: 'POST',
          path: '/v1/runs',
          headers: { 'Content-Type': 'application/json' },
          body,
        };
        const { problem } = await check(req);
        if (problem) problems.push(`${path.join('.')} = ${String(value)} → ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
