/**
 * Who answered a run's question (`POST /v1/runs/:id/input`, `answer_input` at /mcp): behind
 * Cloudflare Access the signed-in identity is recorded on InputReceived as `answered_by` — a body
 * naming another is refused `approver_mismatch`, as an approval is — and without Access the name
 * given as `approver`, as given. Real Access tokens, verified against keys served on loopback.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { waitForRun, type Json, askingRun as asking, inputsReceived as received } from '../workers/helpers';
import { accessEnv, ADA, app, call, MACHINE_TOKEN, sign, valid } from './access-kit';

describe('an answer behind Cloudflare Access', () => {
  it('records the signed-in email as who answered, without a name in the body', async () => {
    const runId = await asking();
    const res = await call(`/v1/runs/${runId}/input`, {
      jwt: await sign(valid()),
      method: 'POST',
      body: { input: 'yes', step_id: 'ask' },
    });
    expect(res.status).toBe(200);
    // Verified, and the event says so: answered_by_via "access".
    expect(await received(runId)).toEqual([
      { input: 'yes', step_id: 'ask', answered_by: ADA, answered_by_via: 'access' },
    ]);
    const run = await waitForRun(runId, (r) => r.status === 'completed');
    expect(run.step_results).toEqual({ ask: 'yes' });
  });

  it('refuses another name (400 approver_mismatch, naming who you are), and takes the same one', async () => {
    const runId = await asking();
    const jwt = await sign(valid());
    const other = await call(`/v1/runs/${runId}/input`, {
      jwt,
      method: 'POST',
      body: { input: 'yes', step_id: 'ask', approver: 'Mallory' },
    });
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('approver_mismatch');
    expect(other.body.error.message).toContain(`signed in through Cloudflare Access as ${ADA}`);
    expect(other.body.error.message).toContain('the answer is recorded');
    // Nothing taken: the run still waits for the answer.
    expect((await call(`/v1/runs/${runId}`, { jwt })).body.status).toBe('awaiting_input');
    expect(await received(runId)).toEqual([]);

    const same = await call(`/v1/runs/${runId}/input`, {
      jwt,
      method: 'POST',
      body: { input: 'yes', step_id: 'ask', approver: ADA },
    });
    expect(same.status).toBe(200);
    expect(await received(runId)).toEqual([
      { input: 'yes', step_id: 'ask', answered_by: ADA, answered_by_via: 'access' },
    ]);
  });

  it('records the identity of an answer sent through /mcp (answer_input)', async () => {
    const runId = await asking();
    const res = await app.fetch(
      new Request('http://edgeplan.test/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'Cf-Access-Jwt-Assertion': await sign(valid({ email: 'grace@example.com' })),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'answer_input', arguments: { run_id: runId, input: 'no', step_id: 'ask' } },
        }),
      }),
      accessEnv,
    );
    expect(res.status).toBe(200);
    await waitForRun(runId, (r) => r.status === 'completed');
    expect(await received(runId)).toEqual([
      { input: 'no', step_id: 'ask', answered_by: 'grace@example.com', answered_by_via: 'access' },
    ]);
  });
});

describe('an answer without Access', () => {
  it('records the name given as approver, never as part of the input', async () => {
    const runId = await asking();
    const res = await call(`/v1/runs/${runId}/input`, {
      method: 'POST',
      body: { input: { ship: true }, step_id: 'ask', approver: '  Ada Lovelace ' },
      envOverride: env,
    });
    expect(res.status).toBe(200);
    // An API open without a token (ALLOW_ANONYMOUS): the name as stated, by no one authenticated.
    expect(await received(runId)).toEqual([
      { input: { ship: true }, step_id: 'ask', answered_by: 'Ada Lovelace', answered_by_via: 'anonymous' },
    ]);
    const run = await waitForRun(runId, (r) => r.status === 'completed');
    expect(run.step_results).toEqual({ ask: { ship: true } });
  });

  it('records a name sent with the API token as stated by its holder (answered_by_via "token")', async () => {
    const runId = await asking();
    // Access configured, but this caller is a machine with the API token: its name is a label.
    const res = await call(`/v1/runs/${runId}/input`, {
      bearer: MACHINE_TOKEN,
      method: 'POST',
      body: { input: 'yes', step_id: 'ask', approver: 'Ada' },
    });
    expect(res.status).toBe(200);
    expect(await received(runId)).toEqual([
      { input: 'yes', step_id: 'ask', answered_by: 'Ada', answered_by_via: 'token' },
    ]);
    const page = await call(`/v1/runs/${runId}/events?after=0`, { bearer: MACHINE_TOKEN });
    const answer = (page.body.events as Json[]).find((e) => e.event_type === 'InputReceived');
    expect(answer?.payload).toMatchObject({ answered_by: 'Ada', answered_by_via: 'token' });
  });

  it('records nothing of who answered when no name is given', async () => {
    const runId = await asking();
    const res = await call(`/v1/runs/${runId}/input`, {
      method: 'POST',
      body: { input: 'yes' },
      envOverride: env,
    });
    expect(res.status).toBe(200);
    expect(await received(runId)).toEqual([{ input: 'yes', step_id: 'ask' }]);
  });

  it('refuses a name that is no one-line name, and a name with nothing to answer, with 400s that say so', async () => {
    const runId = await asking();
    const cases: [Json, string][] = [
      [{ input: 'yes', step_id: 'ask', approver: 'Ada\nApproved by: Grace' }, 'on one line'],
      [{ input: 'yes', step_id: 'ask', approver: '   ' }, 'at least one visible character'],
      [{ input: 'yes', approver: 7 }, 'approver'],
      [{ approver: 'Ada' }, 'the answer goes beside it'],
      [{ input: 'yes', step_id: 'ask', approver: 'Ada', note: 1 }, '"approver"'],
    ];
    for (const [body, says] of cases) {
      const res = await call(`/v1/runs/${runId}/input`, { method: 'POST', body, envOverride: env });
      expect([JSON.stringify(body), res.status, res.body.error?.code]).toEqual([
        JSON.stringify(body),
        400,
        'invalid_request',
      ]);
      expect(res.body.error.message).toContain(says);
    }
    expect(await received(runId)).toEqual([]);
    expect((await call(`/v1/runs/${runId}`, { envOverride: env })).body.status).toBe('awaiting_input');
  });
});
