/**
 * `GET /v1/runs/:id/wait` through the Worker's entrypoint: answered when the run gets where `until`
 * says — woken by its events — or refused, saying why, for a bad query or an unknown run.
 */
import { describe, expect, it } from 'vitest';
import { api, startRun } from './helpers';

describe('GET /v1/runs/:id/wait', () => {
  it('answers once a running run ended, with the run as GET /v1/runs/:id has it', async () => {
    const id = await startRun({
      steps: [{ id: 's', action: 'demo.sleep', parameters: { ms: 200, value: 7 } }],
    });
    const r = await api('GET', `/v1/runs/${id}/wait?timeout_s=30`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      timed_out: false,
      run: { run_id: id, status: 'completed', step_results: { s: 7 } },
    });
    const now = await api('GET', `/v1/runs/${id}`);
    expect(r.body.run).toEqual(now.body);
  });

  it('refuses a bad query with invalid_request naming the parameter, and an unknown run with not_found', async () => {
    const id = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] });
    for (const query of ['until=forever', 'timeout_s=0', 'timeout_s=51', 'timeout_s=2.5', 'after=-1']) {
      const r = await api('GET', `/v1/runs/${id}/wait?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.error, query).toMatchObject({
        code: 'invalid_request',
        message: expect.stringContaining(query.split('=')[0]!),
      });
    }
    for (const other of ['run_0123456789abcdef0123456789abcdef', 'nope', '..%2F..%2Fhealth', 'run_é']) {
      const r = await api('GET', `/v1/runs/${other}/wait?timeout_s=1`);
      expect(r.status, other).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
  });

  it('refuses any_change after a seq past the run’s last event at once, naming its last_seq', async () => {
    const id = await startRun({
      steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'q?' } }],
    });
    const waiting = await api('GET', `/v1/runs/${id}/wait?until=waiting&timeout_s=30`);
    expect(waiting.body.run.status).toBe('awaiting_input');
    const last = waiting.body.run.last_seq as number;
    const r = await api('GET', `/v1/runs/${id}/wait?until=any_change&after=${last + 1}&timeout_s=50`);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining(`(seq ${last})`),
      details: { after: last + 1, last_seq: last },
    });
    // The other waits do not count events, so after does not matter to them; the run still asks.
    const terminal = await api('GET', `/v1/runs/${id}/wait?until=waiting&after=${last + 1}&timeout_s=1`);
    expect(terminal.body).toMatchObject({ timed_out: false, run: { status: 'awaiting_input' } });
  });
});
