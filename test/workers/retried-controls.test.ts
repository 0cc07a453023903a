/**
 * A control request sent again — its answer was lost, or the client retried it — does its work once:
 * the second is refused (409, or 404 for a DELETE) with details that say what the run is now, so the
 * client can tell that what it asked for happened. (POST /v1/runs itself is made retryable with an
 * Idempotency-Key: idempotent-create.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { api, events, startRun, waitForRun, type Json } from './helpers';

const echo = (id: string) => ({ id, action: 'demo.echo', parameters: { v: id } });
const count = async (runId: string, type: string) =>
  (await events(runId)).filter((e) => e.event_type === type).length;

describe('a control request sent twice', () => {
  it('cancel: the second is 409 run_finished with status cancelled; the run was cancelled once', async () => {
    const runId = await startRun({ steps: [{ id: 's', action: 'demo.sleep', parameters: { ms: 5000 } }] });
    const first = await api('POST', `/v1/runs/${runId}/cancel`, {});
    const second = await api('POST', `/v1/runs/${runId}/cancel`, {});
    expect(first).toMatchObject({ status: 200, body: { status: 'cancelled' } });
    expect(second.status).toBe(409);
    expect(second.body.error.details).toEqual({ reason: 'run_finished', status: 'cancelled' });
    expect(await count(runId, 'RunTerminated')).toBe(1);
  });

  it('approve: the second is 409 with the run’s status now; the plan was approved once', async () => {
    const runId = await startRun({ steps: [echo('a')] }, { require_plan_approval: true });
    await waitForRun(runId, (r) => r.status === 'awaiting_approval');
    expect((await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' })).status).toBe(200);
    const second = await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' });
    expect(second.status).toBe(409);
    expect(second.body.error.details).toMatchObject({ reason: 'run_status', needed: 'awaiting_approval' });
    expect(['running', 'completed']).toContain(second.body.error.details.status);
    expect(await count(runId, 'ApprovalGranted')).toBe(1);
  });

  it('retry: the second is 409 run_not_retryable with the run’s status; the run was resumed once', async () => {
    const runId = await startRun({ steps: [{ id: 's', action: 'demo.sleep', parameters: { ms: 5000 } }] });
    await api('POST', `/v1/runs/${runId}/cancel`, {});
    expect((await api('POST', `/v1/runs/${runId}/retry`, {})).body.status).toBe('running');
    const second = await api('POST', `/v1/runs/${runId}/retry`, {});
    expect(second.status).toBe(409);
    expect(second.body.error.details).toEqual({ reason: 'run_not_retryable', status: 'running' });
    expect(await count(runId, 'RunResumed')).toBe(1);
    await api('POST', `/v1/runs/${runId}/cancel`, {});
  });

  it('input to a step: the second is 409 input_not_awaited; the answer was taken once', async () => {
    const runId = await startRun({
      steps: [{ id: 'q', action: 'human.input', parameters: { prompt: 'name?' } }],
    });
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    const body = { input: 'bob', step_id: 'q' };
    expect((await api('POST', `/v1/runs/${runId}/input`, body)).status).toBe(200);
    const second = await api('POST', `/v1/runs/${runId}/input`, body);
    expect(second.status).toBe(409);
    expect(second.body.error.details).toMatchObject({ reason: 'input_not_awaited', status: 'completed' });
    expect(await count(runId, 'InputReceived')).toBe(1);
  });

  it('input with step_id but no input, or a key beside the two, is 400: never taken whole as new information', async () => {
    const runId = await startRun({
      steps: [{ id: 'q', action: 'human.input', parameters: { prompt: 'name?' } }],
    });
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    const refusals: [Json, string][] = [
      [{ step_id: 'q' }, 'the answer goes in "input"'],
      [{ inptu: 'bob', step_id: 'q' }, 'Unknown key "inptu" (did you mean "input"?)'],
      [{ input: 'bob', step_id: 'q', note: 'x' }, 'Unknown key "note"'],
    ];
    for (const [body, says] of refusals) {
      const r = await api('POST', `/v1/runs/${runId}/input`, body);
      expect([JSON.stringify(body), r.status, r.body.error.code]).toEqual([
        JSON.stringify(body),
        400,
        'invalid_request',
      ]);
      expect(r.body.error.message).toContain(says);
    }
    // The question still waits, unanswered, and nothing was taken as new information.
    expect(await count(runId, 'InputReceived')).toBe(0);
    expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('awaiting_input');
    expect((await api('POST', `/v1/runs/${runId}/input`, { input: null, step_id: 'q' })).status).toBe(200);
    expect(await count(runId, 'InputReceived')).toBe(1);
  });

  it('DELETE: the second is 404, as every route answers a deleted run', async () => {
    const runId = await startRun({ steps: [echo('a')] });
    await waitForRun(runId);
    expect((await api('DELETE', `/v1/runs/${runId}`)).status).toBe(200);
    const second = await api('DELETE', `/v1/runs/${runId}`);
    expect([second.status, second.body.error.code]).toEqual([404, 'not_found']);
  });
});
