/**
 * A Worker without something edgeplan needs answers `500 misconfigured` naming the fix, through the
 * app as a request meets it (Hono's `app.request` with the bindings given), not `500 internal`.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app';
import { misconfiguration } from '../../src/http/misconfiguration';

/** A D1 binding whose every statement fails as an unmigrated database does. */
const unmigrated = {
  prepare: () => {
    throw new Error('D1_ERROR: no such table: runs: SQLITE_ERROR');
  },
};

const ask = async (path: string, env: Record<string, unknown>) => {
  const res = await createApp().request(path, {}, { ALLOW_ANONYMOUS: 'true', ...env });
  const body = await res.json<{ error: { code: string; message: string } }>();
  return { status: res.status, body };
};

describe('a misconfigured Worker', () => {
  it('names a missing binding', async () => {
    const r = await ask('/v1/runs/run_0123456789abcdef0123456789abcdef', { DB: unmigrated, KV: {} });
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe('misconfigured');
    expect(r.body.error.message).toMatch(/^The Worker has no binding PLAN_RUN: the PlanRun Durable Object/);
    expect(r.body.error.message).toContain('STEPS: the steps queue');
  });

  it('says to apply the D1 migrations when a table is missing', async () => {
    const r = await ask('/v1/runs', { DB: unmigrated, KV: {}, PLAN_RUN: {}, STEPS: {} });
    expect(r.status).toBe(500);
    expect(r.body.error).toEqual({
      code: 'misconfigured',
      message: expect.stringContaining('has no table "runs": apply edgeplan\'s migrations') as string,
    });
  });

  it('says to apply the D1 migrations when a newer column is missing (an upgrade without them)', () => {
    const env = { DB: {}, KV: {}, PLAN_RUN: {}, STEPS: {} };
    for (const message of [
      'D1_ERROR: no such column: run_id: SQLITE_ERROR',
      'D1_ERROR: table planning_attempts has no column named run_id: SQLITE_ERROR',
    ]) {
      expect(misconfiguration(new Error(message), env)).toMatch(
        /^The D1 database \(binding DB\) has no column "run_id": apply edgeplan's migrations/,
      );
      // A local state kept elsewhere (`wrangler dev --persist-to`) is migrated only when named.
      expect(misconfiguration(new Error(message), env)).toContain('--persist-to <dir>');
    }
  });

  it('says to give the run object SQLite storage', () => {
    const err = new Error('SQL is not enabled for this Durable Object class.');
    expect(misconfiguration(err, {})).toMatch(/new_sqlite_classes = \["PlanRun"\]/);
    // Anything else stays a 500 internal.
    expect(misconfiguration(new Error('boom'), { PLAN_RUN: {}, DB: {}, KV: {}, STEPS: {} })).toBeNull();
    expect(misconfiguration(new RangeError('x'), {})).toBeNull();
  });
});
