/**
 * `GET /v1/runs/:id/planning` over D1 rows it cannot read (another release's, or edited by hand): the
 * rest of the trace is served, the row is left out — or served without its findings when only those
 * do not fit — and each is logged as planning_attempt_unreadable. Never a 500 for the whole trace.
 */
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { D1ProvenanceStore } from '../../src/planner/provenance-d1';
import { attempt } from '../unit/planner-provenance-conformance';
import { api, startRun, type Json } from './helpers';

afterEach(() => vi.restoreAllMocks());

const lines = (spy: { mock: { calls: unknown[][] } }): Json[] =>
  spy.mock.calls.map((args) => JSON.parse(String(args[0])) as Json);

describe('the planning trace with unreadable attempt rows', () => {
  it('serves the readable attempts, one without its findings, and logs each unreadable row', async () => {
    const runId = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: { value: 1 } }] });
    const store = new D1ProvenanceStore(env.DB, { runId });
    const finding = { code: 'cycle' as const, message: 'Cycle detected: a -> a', step_id: 'a' };
    const good = attempt({ seq: 1, outcome: 'invalid', findings: [finding] });
    const badFindings = attempt({ seq: 2, outcome: 'invalid', findings: [finding] });
    const notJson = attempt({ seq: 3, outcome: 'invalid', findings: [finding] });
    const badRow = attempt({ seq: 4 });
    for (const a of [good, badFindings, notJson, badRow]) await store.recordAttempt(a);
    const update = (sql: string, value: string, id: string) =>
      env.DB.prepare(`UPDATE planning_attempts SET ${sql} WHERE id = ?`).bind(value, id).run();
    await update('findings_json = ?', JSON.stringify([{ code: 'no_such_code', message: 1 }]), badFindings.id);
    await update('findings_json = ?', '[{"code": "cyc', notJson.id);
    await update('outcome = ?', 'exploded', badRow.id);

    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const res = await api('GET', `/v1/runs/${runId}/planning`);
    expect(res.status).toBe(200);
    const attempts = res.body.attempts as Json[];
    expect(attempts.map((a) => [a.seq, a.findings])).toEqual([
      [1, [finding]],
      [2, []],
      [3, []],
    ]);
    const logged = lines(errors).filter((l) => l.event === 'planning_attempt_unreadable');
    expect(logged.map((l) => [l.run_id, l.message])).toEqual([
      [runId, `planning attempt ${badFindings.id}: unreadable row, served without its findings`],
      [runId, `planning attempt ${notJson.id}: unreadable row, served without its findings (not JSON)`],
      [runId, `planning attempt ${badRow.id}: unreadable row, left out`],
    ]);
    expect(logged[0]!.error.message).toContain('code');
    expect(logged[2]!.error.message).toContain('outcome');
  });
});
