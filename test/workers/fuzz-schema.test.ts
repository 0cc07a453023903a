/**
 * Schema-driven fuzz (fast-check, fixed seeds, bounded runs) through the Worker's entrypoint with real
 * Durable Objects, D1 and Queues: requests generated from every operation of the OpenAPI document and
 * mutated (test/fuzz/api-requests.ts) are answered below 500, every refusal in JSON with a code from
 * src/error-codes.ts sent with that code's status, and nothing hangs; control requests with hostile
 * bodies aimed at a run either apply whole or leave its status, events and plan versions exactly as
 * they were; hostile frames on a run's WebSocket close that socket and nothing else; and, as fixed
 * cases, every numeric config field (aliases too) set to each number at the edges in a run that
 * starts (test/fuzz/config-numbers.ts). A failure prints fast-check's shrunk counterexample (the seed
 * and path replay it).
 */
import { env, exports } from 'cloudflare:workers';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app';
import {
  apiRequest,
  describeRequest,
  encode,
  FUZZ_TOKEN,
  OPERATIONS,
  requestFor,
  SEED_BODIES,
  type FuzzRequest,
} from '../fuzz/api-requests';
import { CONFIG_NUMBERS, CONFIG_VALUES, configBody } from '../fuzz/config-numbers';
import { hostileValue, jsonText } from '../fuzz/hostile-json';
import { answerOf, HANG_MS, problemWith, type Answer } from '../fuzz/response-check';
import { api, startRun, waitForRun, type Json } from './helpers';

const SEED = 2026_05_01;

/** A request as the Worker receives it; null when no client could send it (the constructor refuses). */
function toRequest(req: FuzzRequest, signal?: AbortSignal): Request | null {
  try {
    return new Request(`http://edgeplan.test${req.target}`, {
      method: req.method,
      headers: req.headers,
      body: req.body ?? null,
      ...(signal ? { signal } : {}),
    });
  } catch {
    return null;
  }
}

/** The app as the Worker serves it, for requests to a deployment with an API token. */
const app = createApp();

/** Through the Worker's entrypoint (no API token, ALLOW_ANONYMOUS), or to a deployment with a token. */
async function send(req: FuzzRequest, withToken = false): Promise<Answer | { hang: true } | null> {
  if (!toRequest(req)) return null;
  return answerOf((signal) =>
    withToken
      ? Promise.resolve(app.fetch(toRequest(req, signal)!, { ...env, API_TOKEN: FUZZ_TOKEN }))
      : exports.default.fetch(toRequest(req, signal)!),
  );
}

const TWO_STEPS = {
  goal: 'fuzz target',
  steps: [
    { id: 'a', action: 'demo.echo', parameters: { text: 'a' } },
    { id: 'b', action: 'demo.echo', parameters: { text: 'b' }, dependencies: ['a'] },
  ],
};

async function awaitingApproval(): Promise<string> {
  const id = await startRun(TWO_STEPS, { require_plan_approval: true });
  await waitForRun(id, (r) => r.status === 'awaiting_approval');
  return id;
}

/** What must not change when a request is refused: status, every event, the plan versions. */
async function snapshot(id: string): Promise<{ status: string; events: Json[]; versions: Json[] }> {
  const run = await api('GET', `/v1/runs/${id}`);
  const events = await api('GET', `/v1/runs/${id}/events?after=0&limit=1000`);
  const plans = await api('GET', `/v1/runs/${id}/plans`);
  return {
    status: run.body.status as string,
    events: events.body.events as Json[],
    versions: plans.body.versions as Json[],
  };
}

describe('schema-driven fuzz', () => {
  const ids: string[] = [];

  beforeAll(async () => {
    const done = await startRun(TWO_STEPS);
    await waitForRun(done);
    ids.push(await awaitingApproval(), done, 'run_0000000000000000');
  });

  it('answers every generated request below 500, refusals in JSON with a code from the table, none hangs', async () => {
    const seen = new Set<string>();
    const statuses: number[] = [];
    await fc.assert(
      fc.asyncProperty(apiRequest(ids), fc.boolean(), async (req, withToken) => {
        const answer = await send(req, withToken);
        if (answer === null) return; // not a request any client can send
        seen.add(req.operation);
        if ('status' in answer) statuses.push(answer.status);
        const problem = problemWith(req, answer);
        expect(problem, describeRequest(req)).toBeNull();
      }),
      { seed: SEED, numRuns: 1500 },
    );
    // Every operation of the document was asked, and answers of each kind came back.
    const missing = OPERATIONS.map((o) => `${o.method} ${o.path}`).filter((o) => !seen.has(o));
    expect(missing).toEqual([]);
    expect(seen).toContain('POST /mcp');
    expect(seen).toContain('unknown route');
    expect(statuses.filter((s) => s < 300).length).toBeGreaterThan(100);
    expect(new Set(statuses.filter((s) => s >= 400)).size).toBeGreaterThanOrEqual(8);
  }, 120_000);

  it('applies a control request with a hostile body whole or not at all: a refused one changes nothing', async () => {
    let target = await awaitingApproval();
    const controls = [
      ['POST', '/v1/runs/{id}/approval'],
      ['POST', '/v1/runs/{id}/approval'],
      ['POST', '/v1/runs/{id}/approval'],
      ['POST', '/v1/runs/{id}/cancel'],
      ['POST', '/v1/runs/{id}/retry'],
      ['POST', '/v1/runs/{id}/input'],
      ['POST', '/v1/runs/{id}/replan'],
      ['POST', '/v1/runs/{id}/rollback'],
    ] as const;
    const outcomes = { refused: 0, applied: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...controls).chain(([m, p]) => requestFor(m, p, 'TARGET')),
        async (template) => {
          const req = { ...template, target: template.target.replace('TARGET', encode(target)) };
          const before = await snapshot(target);
          const answer = await send(req);
          if (answer === null) return;
          expect(problemWith(req, answer), describeRequest(req)).toBeNull();
          const refused = !('status' in answer) || answer.status >= 400;
          const after = await snapshot(target);
          // Events are append-only, numbered 1..n with no gap or repeat, whatever happened.
          expect(after.events.slice(0, before.events.length)).toEqual(before.events);
          expect(after.events.map((e) => e.seq)).toEqual(after.events.map((_, i) => i + 1));
          // A refusal changes nothing: no status, no event, no plan version (no half-applied edit).
          expect(!refused || after.status === before.status, describeRequest(req)).toBe(true);
          expect(!refused || after.events.length === before.events.length, describeRequest(req)).toBe(true);
          expect(refused ? after.versions : before.versions).toEqual(before.versions);
          outcomes[refused ? 'refused' : 'applied']++;
          // A request that was taken moved the run on: the next one needs a run awaiting approval.
          if (!refused || after.status !== 'awaiting_approval') target = await awaitingApproval();
        },
      ),
      { seed: SEED + 1, numRuns: 120 },
    );
    expect(outcomes.refused).toBeGreaterThan(20);
    expect(outcomes.applied).toBeGreaterThan(3);
  }, 120_000);

  it('records at most one approval decision of several raced at one run, and loses no event', async () => {
    const controls = [
      ['POST', '/v1/runs/{id}/approval'],
      ['POST', '/v1/runs/{id}/approval'],
      ['POST', '/v1/runs/{id}/cancel'],
      ['POST', '/v1/runs/{id}/rollback'],
    ] as const;
    // Hostile requests, and one decision a client would send, at a place among them: mutated ones alone
    // are nearly all refused, and then no race has a decision to take (it hung on the generators' luck).
    const clean = fc
      .constantFrom(...SEED_BODIES['POST /v1/runs/{id}/approval']!)
      .map((body): FuzzRequest => ({
        operation: 'POST /v1/runs/{id}/approval',
        method: 'POST',
        target: '/v1/runs/TARGET/approval',
        headers: { 'Content-Type': 'application/json' },
        body: jsonText(body),
      }));
    const race = fc
      .tuple(
        fc.array(
          fc.constantFrom(...controls).chain(([m, p]) => requestFor(m, p, 'TARGET')),
          { minLength: 1, maxLength: 4 },
        ),
        clean,
        fc.nat(),
      )
      .map(([hostile, decision, at]) => hostile.toSpliced(at % (hostile.length + 1), 0, decision));
    const decisions = new Set(['ApprovalGranted', 'ApprovalRejected']);
    let decided = 0;
    await fc.assert(
      fc.asyncProperty(race, async (templates) => {
        const target = await awaitingApproval();
        const before = await snapshot(target);
        const reqs = templates.map((t) => ({ ...t, target: t.target.replace('TARGET', encode(target)) }));
        const answers = await Promise.all(reqs.map((r) => send(r)));
        answers.forEach((a, i) =>
          expect(a && problemWith(reqs[i]!, a), describeRequest(reqs[i]!)).toBeNull(),
        );
        const after = await snapshot(target);
        expect(after.events.slice(0, before.events.length)).toEqual(before.events);
        expect(after.events.map((e) => e.seq)).toEqual(after.events.map((_, i) => i + 1));
        // One decision ends the wait: the run records at most one, however many raced to make it.
        const taken = after.events.filter((e) => decisions.has(e.event_type as string));
        expect(taken.length, JSON.stringify(taken.map((e) => e.event_type))).toBeLessThanOrEqual(1);
        decided += taken.length;
      }),
      { seed: SEED + 3, numRuns: 25 },
    );
    // The races were real: in most, a decision was taken while others were refused.
    expect(decided).toBeGreaterThan(10);
  }, 120_000);

  it('closes a WebSocket sent hostile frames or a hostile `after`, and the run and its API go on', async () => {
    const [, done] = ids;
    const before = await snapshot(done!);
    const frame = fc.oneof(
      fc.constant('ping'),
      hostileValue.map((v) => (typeof v === 'string' ? v : jsonText(v))),
      fc.uint8Array({ maxLength: 64 }),
      fc.constantFrom('x'.repeat(1 << 20), '{"type":"subscribe","after":-1}', 'PING', 'ping '),
    );
    const after = fc.constantFrom(
      '',
      '0',
      '-1',
      '1',
      '2',
      '1.5',
      '1e308',
      'NaN',
      'x',
      '%FF',
      '%',
      '99999999999999999999',
      '0x10',
    );
    await fc.assert(
      fc.asyncProperty(after, fc.array(frame, { minLength: 1, maxLength: 4 }), async (a, frames) => {
        const res = await exports.default.fetch(
          new Request(`http://edgeplan.test/v1/runs/${done}/ws${a === '' ? '' : `?after=${a}`}`, {
            headers: { Upgrade: 'websocket' },
          }),
        );
        if (!res.webSocket) {
          // A refused `after`: the envelope, below 500.
          const refusal = {
            status: res.status,
            contentType: res.headers.get('Content-Type') ?? '',
            text: await res.text(),
          };
          expect(
            problemWith(
              { operation: 'GET /v1/runs/{id}/ws', method: 'GET', target: '/ws', headers: {} },
              refusal,
            ),
          ).toBeNull();
          return;
        }
        const ws = res.webSocket;
        ws.accept();
        // Settles on the pong that answers the last ping, or on the close a bad frame causes.
        const ended = new Promise<string>((resolve) => {
          ws.addEventListener('message', (m) => m.data === 'pong' && resolve('pong'));
          ws.addEventListener('close', (e) => resolve(`close ${e.code}`));
          setTimeout(() => resolve('hang'), HANG_MS);
        });
        for (const f of frames) ws.send(f);
        ws.send('ping');
        const outcome = await ended;
        expect(outcome).not.toBe('hang');
        expect(['pong', 'close 1003', 'close 1009', 'close 1000']).toContain(outcome);
        try {
          ws.close(1000, 'fuzz');
        } catch {
          // already closed
        }
      }),
      { seed: SEED + 2, numRuns: 40 },
    );
    expect(await snapshot(done!)).toEqual(before);
  }, 120_000);

  it('answers every numeric config field set to a number at the edges below 500, for runs that start', async () => {
    const problems: string[] = [];
    let started = 0;
    for (const path of CONFIG_NUMBERS) {
      for (const [i, value] of CONFIG_VALUES.entries()) {
        // Half wait for approval (a deadline from approval.timeout_s), half start their steps.
        const req: FuzzRequest = {
          operation: 'POST /v1/runs',
          method: 'POST',
          target: '/v1/runs',
          headers: { 'Content-Type': 'application/json' },
          body: configBody(path, value, i % 2 === 0),
        };
        const answer = await send(req);
        const problem = answer === null ? 'not sendable' : problemWith(req, answer);
        if (problem) problems.push(`${path.join('.')} = ${jsonText(value)} → ${problem}`);
        if (answer && 'status' in answer && answer.status === 201) started++;
      }
    }
    expect(problems).toEqual([]);
    // Not all refused at the door: the runs that take a value start, and are driven with it.
    expect(started).toBeGreaterThan(CONFIG_NUMBERS.length);
  }, 180_000);
});
