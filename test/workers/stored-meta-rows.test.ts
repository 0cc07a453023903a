/**
 * A run's rows beside its state — the parent a child run reports to, the approval link's record —
 * written by another release or by hand in a shape this one cannot read: each is refused or reported
 * the way its reader documents, never a 5xx of its own and never a retry that cannot succeed.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { childRunId } from '../../src/engine/child-run';
import { APPROVER_URL, runAwaitingApproval } from './approval-helpers';
import { api, waitForRun, type Json } from './helpers';

afterEach(() => vi.restoreAllMocks());

const inObject = <T>(runId: string, fn: (sql: SqlStorage) => T) =>
  runInDurableObject(env.PLAN_RUN.getByName(runId), (_i, state) => fn(state.storage.sql));

const setMeta = (runId: string, key: string, value: string) =>
  inObject(runId, (sql) => void sql.exec('UPDATE meta SET value = ? WHERE key = ?', value, key));

/** The JSON log lines written to the spied console method so far. */
const lines = (spy: { mock: { calls: unknown[][] } }): Json[] =>
  spy.mock.calls.map((args) => JSON.parse(String(args[0])) as Json);

describe('a child run whose parent row is unreadable', () => {
  it('ends as it would, logs child_run_not_reported once and does not try again', async () => {
    const child = { steps: [{ id: 'x', action: 'demo.echo', parameters: { value: 1 } }] };
    const created = await api('POST', '/v1/runs', {
      plan: {
        steps: [
          {
            id: 'c',
            action: 'agent.dispatch',
            parameters: { plan: child, config: { require_plan_approval: true } },
          },
        ],
      },
    });
    expect(created.status).toBe(201);
    const parentId = created.body.run_id as string;
    const childId = await childRunId({ run_id: parentId, step_id: 'c', attempt: 1 });
    await waitForRun(childId, (r) => r.status === 'awaiting_approval');
    await setMeta(childId, 'parent', JSON.stringify({ run_id: parentId, step: 'c' }));
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const approved = await api('POST', `/v1/runs/${childId}/approval`, { decision: 'approve' });
    expect(approved.status).toBe(200);
    expect((await waitForRun(childId)).status).toBe('completed');
    await vi.waitFor(() =>
      expect(lines(errors).filter((l) => l.run_id === childId)).toEqual([
        expect.objectContaining({
          event: 'child_run_not_reported',
          error: expect.objectContaining({ message: expect.stringContaining('stored parent does not fit') }),
        }),
      ]),
    );
    // Its report is done with, not parked for another try.
    await vi.waitFor(async () =>
      expect(
        await inObject(childId, (sql) =>
          sql.exec("SELECT count(*) AS n FROM sqlite_master WHERE name = 'side_work'").one().n === 0
            ? 0
            : sql.exec("SELECT count(*) AS n FROM side_work WHERE task LIKE '%report_parent%'").one().n,
        ),
      ).toBe(0),
    );
    // The parent's step still waits (its deadline fails it); the parent can be cancelled meanwhile.
    expect((await api('GET', `/v1/runs/${parentId}`)).body.step_statuses.c).toBe('running');
    expect((await api('POST', `/v1/runs/${parentId}/cancel`)).status).toBe(200);
  });
});

describe('an approval link whose stored record is unreadable', () => {
  const plan = { steps: [{ id: 'a', action: 'demo.echo', parameters: { value: 1 } }] };
  const config = { require_plan_approval: true, approval: { webhook_url: APPROVER_URL } };
  const viaLink = (runId: string, token: string) =>
    api('POST', `/v1/runs/${runId}/approval?token=${encodeURIComponent(token)}`, { decision: 'approve' });

  it('is replaced by a new link that a webhook retry sends, and that link approves the run', async () => {
    const sent: string[] = [];
    const real = globalThis.fetch;
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const req = new Request(input, init);
      if (!req.url.startsWith(new URL(APPROVER_URL).origin)) return real(input, init);
      sent.push(await req.text());
      // The first delivery fails as a receiver that is down does: it is tried again (1 s later).
      return new Response(sent.length === 1 ? 'down' : 'ok', { status: sent.length === 1 ? 503 : 200 });
    });
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const created = await api('POST', '/v1/runs', { plan, config });
    const runId = created.body.run_id as string;
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    await setMeta(runId, 'approval_token', '{"hash": "ab');
    await vi.waitFor(() => expect(sent).toHaveLength(2), { timeout: 10_000, interval: 50 });
    const tokens = sent.map((b) =>
      new URL((JSON.parse(b) as Json).approval_url as string).searchParams.get('token')!,
    );
    expect(tokens[1]).not.toBe(tokens[0]);
    expect(
      lines(errors)
        .filter((l) => l.run_id === runId)
        .map((l) => l.event),
    ).toEqual(['approval_webhook_not_delivered', 'approval_link_unreadable']); // the 503, then the link
    // The first link was sent (a delivery that failed may have arrived): its holder is told a new
    // one replaced it, for the same version, which still awaits.
    const first = await viaLink(runId, tokens[0]!);
    expect([first.status, first.body.error.code]).toEqual([410, 'approval_link_superseded']);
    expect(first.body.error.details).toMatchObject({ asked_version: 1, awaited_version: 1 });
    expect(first.body.error.message).toContain('Version 1 still awaits approval');
    expect((await viaLink(runId, tokens[1]!)).status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
  });

  for (const [what, record] of [
    ['does not fit', JSON.stringify({ hash: 42, expires_at: 'tomorrow' })],
    ['is not JSON', '{"hash": "ab'],
  ] as const) {
    it(`is refused 403 forbidden, saying why and what to do, when it ${what}; the run still waits`, async () => {
      const { runId, token } = await runAwaitingApproval(plan, config);
      await setMeta(runId, 'approval_token', record);
      const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
      const res = await viaLink(runId, token);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect(res.body.error.message).toContain('cannot be checked');
      expect(res.body.error.message).toContain(`POST /v1/runs/${runId}/approval`);
      // The link's page (HTML) too.
      const page = await exports.default.fetch(
        `http://edgeplan.test/v1/runs/${runId}/approval?token=${encodeURIComponent(token)}`,
      );
      expect([page.status, page.headers.get('content-type')]).toEqual([403, 'text/html; charset=UTF-8']);
      await page.body?.cancel();
      expect(lines(errors).filter((l) => l.run_id === runId)).toEqual([
        expect.objectContaining({ event: 'approval_link_unreadable' }),
        expect.objectContaining({ event: 'approval_link_unreadable' }),
      ]);
      expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('awaiting_approval');
      // Decided with an API token, as the message says.
      expect((await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' })).status).toBe(200);
      expect((await waitForRun(runId)).status).toBe('completed');
    });
  }
});

describe('the list of approval links a run sent', () => {
  const plan = { steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] };
  const config = { require_plan_approval: true, approval: { webhook_url: APPROVER_URL } };
  const viaLink = (runId: string, token: string) =>
    api('POST', `/v1/runs/${runId}/approval?token=${encodeURIComponent(token)}`, { decision: 'approve' });
  const linksRow = (runId: string) =>
    inObject(runId, (sql) => sql.exec("SELECT value FROM meta WHERE key = 'approval_links'").toArray());

  it('holds each link sent with the version it asked about; a run from before it decides as before', async () => {
    const { runId, token } = await runAwaitingApproval(plan, config);
    const [row] = await linksRow(runId);
    expect(JSON.parse(row!.value as string)).toEqual([
      { hash: expect.stringMatching(/^[0-9a-f]{64}$/), plan_version: 1 },
    ]);
    // A run an older release sent its link for has no list: its link decides as it did.
    await inObject(runId, (sql) => void sql.exec("DELETE FROM meta WHERE key = 'approval_links'"));
    expect(await linksRow(runId)).toEqual([]);
    expect((await viaLink(runId, token)).status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
  });

  for (const [what, value] of [
    ['does not fit', JSON.stringify([{ hash: 'ab', plan_version: 'one' }])],
    ['is not JSON', '[{"hash'],
  ] as const) {
    it(`is read as empty, logged, when it ${what}: the current link still decides`, async () => {
      const { runId, token } = await runAwaitingApproval(plan, config);
      await setMeta(runId, 'approval_links', value);
      const warns = vi.spyOn(console, 'warn').mockImplementation(() => {});
      // A token never sent reads the list: refused 403 as before, the row logged.
      const wrong = await viaLink(runId, token.slice(0, -4) + 'AAAA');
      expect([wrong.status, wrong.body.error.code]).toEqual([403, 'forbidden']);
      expect(
        lines(warns)
          .filter((l) => l.run_id === runId)
          .map((l) => l.event),
      ).toEqual(['approval_links_unreadable']);
      expect((await viaLink(runId, token)).status).toBe(200);
      expect((await waitForRun(runId)).status).toBe('completed');
    });
  }
});
