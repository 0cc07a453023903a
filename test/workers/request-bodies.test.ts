/**
 * Empty and blank bodies on every POST route: a route that needs a body says so and names what to
 * send (never a 500 from parsing nothing), a route whose body is optional works without one.
 */
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { startRun, waitForRun, type Json } from './helpers';

const plan = { goal: 'wait', steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] };

async function post(path: string, body: string | undefined, headers: Record<string, string>) {
  const res = await exports.default.fetch(
    new Request(`http://edgeplan.test${path}`, { method: 'POST', headers, body }),
  );
  return { status: res.status, body: await res.json<Json>() };
}

/** The ways a client sends "nothing": no body, an empty one, only whitespace, with or without a type. */
const NOTHING: [string, string | undefined, Record<string, string>][] = [
  ['no body', undefined, {}],
  ['an empty JSON body', '', { 'Content-Type': 'application/json' }],
  ['a blank JSON body', ' \n\t ', { 'Content-Type': 'application/json' }],
  ['a blank body without a content type', '   ', {}],
];

/** Each route that needs a body, and a field its message must name. */
const NEEDS_BODY: [string, string][] = [
  ['/v1/runs', '"plan"'],
  ['/v1/plans', '"goal"'],
  ['/v1/plans/validate', '"plan"'],
  ['/v1/runs/run_abc/approval', '"decision"'],
  ['/v1/runs/run_abc/input', '"input"'],
  ['/v1/runs/run_abc/replan', '"reason"'],
  ['/v1/runs/run_abc/rollback', '"version"'],
];

describe('routes that need a body', () => {
  for (const [path, field] of NEEDS_BODY) {
    for (const [what, body, headers] of NOTHING) {
      it(`POST ${path} with ${what} is 400 invalid_request naming ${field}`, async () => {
        const r = await post(path, body, headers);
        expect(r.status).toBe(400);
        expect(r.body.error.code).toBe('invalid_request');
        expect(r.body.error.message).toMatch(/^This request needs a JSON body: send /);
        expect(r.body.error.message).toContain(field);
        expect(r.body.error.details).toEqual({ body: 'missing' });
      });
    }
  }
});

describe('routes whose body is optional', () => {
  for (const [what, body, headers] of NOTHING) {
    it(`cancel and retry accept ${what}`, async () => {
      const runId = await startRun(plan, { require_plan_approval: true });
      await waitForRun(runId, (r) => r.status === 'awaiting_approval');
      const cancelled = await post(`/v1/runs/${runId}/cancel`, body, headers);
      expect(cancelled).toMatchObject({ status: 200, body: { status: 'cancelled' } });
      const retried = await post(`/v1/runs/${runId}/retry`, body, headers);
      expect(retried.status).toBe(200);
    });
  }
});
