/**
 * The approval link (`POST /v1/runs/:id/approval?token=…`, no API token needed) checks its token
 * before anything else: a caller without the right token gets the same 403 whatever the body, the
 * run's state or the plan, and the token is spent only by a decision that is accepted.
 */
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { INVALID_TOKEN_MESSAGE } from '../../src/approval/tokens';
import { createApp } from '../../src/http/app';
import { APPROVER_URL, runAwaitingApproval } from './approval-helpers';
import { startRun, waitForRun, type Json } from './helpers';
import { echo } from '../fixtures/echo-steps';

const plan = { goal: 'approve me', steps: [echo('a'), echo('b', ['a'])] };
const config = {
  require_plan_approval: true,
  approval: { webhook_url: APPROVER_URL },
};
const awaiting = (r: Json) => r.status === 'awaiting_approval';

/** The app with an API token set, so only the link's token lets a request in. */
const app = createApp();
async function viaLink(runId: string, token: string, body: unknown) {
  const res = await app.fetch(
    new Request(`http://edgeplan.test/v1/runs/${runId}/approval?token=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
    { ...env, API_TOKEN: 'secret-token' },
  );
  return { status: res.status, body: await res.json<Json>() };
}

const awaitingApproval = () => runAwaitingApproval(plan, config);

afterEach(() => vi.restoreAllMocks());

const REFUSED = { status: 403, body: { error: { code: 'forbidden', message: INVALID_TOKEN_MESSAGE } } };

/** Bodies that would each get a different answer past the token. */
const BODIES: unknown[] = [
  { decision: 'approve' },
  { decision: 'maybe' },
  { decision: 'modify' },
  { decision: 'modify', edits: [{ op: 'remove_step', step_id: 'a' }] },
  { decision: 'modify', edits: [{ op: 'remove_step', step_id: 'no_such_step' }] },
  { decision: 'modify', plan: { steps: [echo('a', ['a'])] } },
  { decision: 'modify', plan: { steps: Array.from({ length: 2000 }, (_, i) => echo(`s${i}`)) } },
  [1, 2, 3],
];

describe('the approval link with a wrong token', () => {
  it('is 403 with the same message whatever the body, and the run still waits', async () => {
    const { runId, token } = await awaitingApproval();
    const wrong = token.slice(0, -4) + 'AAAA';
    for (const body of BODIES) {
      expect(await viaLink(runId, wrong, body)).toMatchObject(REFUSED);
      expect(await viaLink(runId, 'apv_bogus', body)).toMatchObject(REFUSED);
    }
    expect((await waitForRun(runId, awaiting)).plan_version).toBe(1);
    expect((await viaLink(runId, token, { decision: 'approve' })).status).toBe(200);
  });

  it('is 403 with the same message for a run that is not waiting, has no link, or does not exist', async () => {
    const done = await startRun(plan);
    await waitForRun(done);
    for (const runId of [done, 'run_doesnotexist0000', 'not-a-run-id']) {
      for (const body of BODIES) expect(await viaLink(runId, 'apv_bogus', body)).toMatchObject(REFUSED);
    }
  });
});

describe('the approval link with the right token', () => {
  it('is not spent by a body that is refused, only by the decision that is accepted', async () => {
    const { runId, token } = await awaitingApproval();
    const invalid = await viaLink(runId, token, { decision: 'maybe' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('invalid_request');
    expect(invalid.body.error.message).toContain('decision');
    const missing = await viaLink(runId, token, {
      decision: 'modify',
      edits: [{ op: 'remove_step', step_id: 'no_such_step' }],
    });
    expect(missing.status).toBe(400);
    const cyclic = await viaLink(runId, token, {
      decision: 'modify',
      edits: [{ op: 'set_dependencies', step_id: 'a', dependencies: ['b'] }],
    });
    expect(cyclic.status).toBe(422);
    expect(await viaLink(runId, token, { decision: 'approve' })).toMatchObject({ status: 200 });
    expect((await waitForRun(runId)).status).toBe('completed');
    const again = await viaLink(runId, token, { decision: 'approve' });
    expect(again).toMatchObject({ status: 410, body: { error: { code: 'gone' } } });
  });

  it('is gone (410, as its page says) once the run stopped waiting without it: decided by the API or cancelled', async () => {
    const asApi = (runId: string, path: string, body: unknown) =>
      app.fetch(
        new Request(`http://edgeplan.test/v1/runs/${runId}/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer secret-token' },
          body: JSON.stringify(body),
        }),
        { ...env, API_TOKEN: 'secret-token' },
      );
    const page = async (runId: string, token: string) =>
      (
        await app.fetch(
          new Request(`http://edgeplan.test/v1/runs/${runId}/approval?token=${encodeURIComponent(token)}`),
          { ...env, API_TOKEN: 'secret-token' },
        )
      ).status;

    const approved = await awaitingApproval();
    expect((await asApi(approved.runId, 'approval', { decision: 'approve' })).status).toBe(200);
    await waitForRun(approved.runId);
    const cancelled = await awaitingApproval();
    expect((await asApi(cancelled.runId, 'cancel', {})).status).toBe(200);

    for (const { runId, token } of [approved, cancelled]) {
      expect(await page(runId, token)).toBe(410);
      for (const body of [{ decision: 'approve' }, { decision: 'reject' }, { decision: 'maybe' }]) {
        const r = await viaLink(runId, token, body);
        expect(r).toMatchObject({ status: 410, body: { error: { code: 'gone' } } });
        // Said as a sentence, full stop and all, as the page shows it.
        expect(r.body.error.message).toMatch(/is (completed|cancelled): nothing to approve\b[^.]*\.$/);
      }
    }
  });
});

describe('an approval link whose token no link carries', () => {
  /** The run namespace, counting the objects the Worker asks for. */
  function countingRuns() {
    const named: string[] = [];
    const runs = new Proxy(env.PLAN_RUN, {
      get(target, key) {
        const value = Reflect.get(target, key, target) as unknown;
        if (key !== 'getByName' || typeof value !== 'function') return value;
        return (name: string) => {
          named.push(name);
          return target.getByName(name);
        };
      },
    });
    return { runs, named };
  }

  it('is refused as a wrong token (page and decision) without waking the run’s object', async () => {
    const { runId, token } = await awaitingApproval();
    const { runs, named } = countingRuns();
    const ask = async (query: string, method: 'GET' | 'POST') => {
      const res = await app.fetch(
        new Request(`http://edgeplan.test/v1/runs/${runId}/approval${query}`, {
          method,
          ...(method === 'POST'
            ? { headers: { 'content-type': 'application/json' }, body: '{"decision":"approve"}' }
            : {}),
        }),
        { ...env, API_TOKEN: 'secret-token', PLAN_RUN: runs },
      );
      return { status: res.status, text: await res.text() };
    };
    const unshaped = ['?token=apv_bogus', `?token=${'A'.repeat(300)}`, `?token=${token}x`];
    for (const query of unshaped) {
      expect((await ask(query, 'GET')).status).toBe(403);
      const post = await ask(query, 'POST');
      expect({ status: post.status, body: JSON.parse(post.text) as unknown }).toMatchObject(REFUSED);
    }
    // No token at all is no link: the API asks for its own token.
    for (const query of ['', '?token=']) {
      expect((await ask(query, 'GET')).status).toBe(401);
      expect((await ask(query, 'POST')).status).toBe(401);
    }
    expect(named).toEqual([]);
    // A token of the right shape is the run's to judge: a near miss wakes it and is refused there.
    const nearMiss = token.slice(0, -4) + 'AAAA';
    expect((await ask(`?token=${nearMiss}`, 'GET')).status).toBe(403);
    expect(named).toEqual([runId]);
    expect((await ask(`?token=${token}`, 'GET')).status).toBe(200);
  });
});
