/**
 * A planning attempt whose record D1 refuses is logged as `planning_provenance_not_stored` with the
 * run it planned for (docs/operating.md), so filtering Workers Logs on the run's id finds why its
 * planning trace lacks an attempt. D1 refuses it through a real trigger on `planning_attempts`,
 * scoped to this test's goal.
 */
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { api, waitForRun, type Json } from '../workers/helpers';

const TRIGGER = 'refuse_marked_planning_attempts';

afterEach(async () => {
  setLlmFetch(null);
  vi.restoreAllMocks();
  await env.DB.exec(`DROP TRIGGER IF EXISTS ${TRIGGER}`);
});

describe('planning provenance D1 refuses', () => {
  it('is logged as planning_provenance_not_stored with the run, and planning goes on', async () => {
    const marker = `marker-${crypto.randomUUID()}`;
    await env.DB.prepare(
      `CREATE TRIGGER ${TRIGGER} BEFORE INSERT ON planning_attempts
       WHEN instr(NEW.prompt, '${marker}') > 0
       BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
    ).run();
    setLlmFetch(
      scriptedLlm([
        JSON.stringify({
          steps: [{ id: 'a', action: 'demo.echo', parameters: { ok: true }, dependencies: [] }],
        }),
      ]).fetch,
    );
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const r = await api('POST', '/v1/runs', { goal: `echo ok (${marker})` });
    expect(r.status).toBe(201);
    const runId = r.body.run_id as string;
    expect((await waitForRun(runId)).status).toBe('completed');
    const lines = errors.mock.calls
      .map((args) => JSON.parse(String(args[0])) as Json)
      .filter((l) => l.event === 'planning_provenance_not_stored');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'error',
        event: 'planning_provenance_not_stored',
        run_id: runId,
        error: expect.objectContaining({ message: expect.stringContaining('refused by the test') }),
      }),
    ]);
  });
});
