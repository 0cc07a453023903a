/**
 * `edgeplan show` and `edgeplan approve` on a run whose revision waits for approval
 * (`approval.revisions: "ask"`), against `wrangler dev` with a scripted LLM (the only part not real):
 * both print what the revision changes since the approved version and why, as the dashboard and the
 * webhook say it; `--as` (or `EDGEPLAN_APPROVER`) sends the decider's name, which `show` then names.
 */
import { describe, expect, it } from 'vitest';
import { cliSetup } from './cli-setup';
import { describedEcho as echo } from '../fixtures/echo-steps';

type Json = Record<string, unknown>;
const { edgeplan: run, api, llm } = cliSetup('cli-approval-changes');
/** The command, with no EDGEPLAN_APPROVER from this shell unless a test gives one. */
const edgeplan = (args: string[], env: Record<string, string> = {}) =>
  run(args, { EDGEPLAN_APPROVER: '', ...env });

async function waitFor(runId: string, done: (run: Json) => boolean): Promise<Json> {
  for (let i = 0; i < 300; i++) {
    const run = await api('GET', `/v1/runs/${runId}`);
    if (done(run)) return run;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${runId} never got there`);
}

describe('edgeplan on a revision awaiting approval', { timeout: 60_000 }, () => {
  it('show and approve print what it changes since the approved version; --as and EDGEPLAN_APPROVER name the decider', async () => {
    const flaky = { fail_times: 99, key: 'cli-approval-changes', permanent: true };
    llm.script('cli-revise', [
      JSON.stringify({
        steps: [
          echo('fetch'),
          { id: 'parse', action: 'demo.flaky', parameters: flaky, dependencies: ['fetch'] },
          echo('report', ['parse'], { format: 'short' }),
        ],
      }),
      JSON.stringify({
        steps: [echo('fetch'), echo('parse2', ['fetch']), echo('report', ['parse2'], { format: 'long' })],
      }),
    ]);
    const { run_id: id } = (await api('POST', '/v1/runs', {
      goal: 'cli-revise: fetch, parse, report',
      config: {
        execution_mode: 'sequential',
        require_plan_approval: true,
        approval: { revisions: 'ask' },
      },
    })) as { run_id: string };
    await waitFor(id, (r) => r.status === 'awaiting_approval');

    // The first plan: which version waits, nothing to compare with.
    const first = await edgeplan(['show', id]);
    expect(first.code).toBe(3);
    expect(first.out).toMatch(
      /^waiting for approval of plan v1 \(until \d{4}-\d\d-\d\d \d\d:\d\d UTC, then rejected\)$/m,
    );
    expect(first.out).not.toContain('since v1');
    const approved = await edgeplan(['approve', id, '--as', 'Ada Lovelace']);
    expect(approved.err).toBe('');
    expect(approved.code).toBe(0);

    // parse fails; the planner writes v2, which waits: show says what it changes and why, first.
    await waitFor(id, (r) => r.status === 'awaiting_approval' && r.plan_version === 2);
    const shown = await edgeplan(['show', id]);
    expect(shown.code).toBe(3);
    const changes = [
      'v2 adds 1 step, changes 1 and removes 1 since v1 was approved',
      expect.stringMatching(/^ {2}why: v2 \(revision after step parse failed\): step "parse" failed: /),
      '  + parse2 (demo.echo), after fetch: echo parse2',
      '  ~ report: parameters format; depends on +parse2 −parse',
      '  − parse (demo.flaky)',
    ];
    const lines = shown.out.split('\n');
    const at = lines.findIndex((l) => l.startsWith('waiting for approval of plan v2 (until '));
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 6)).toEqual(changes);
    // Before the steps' table, and the history names who approved v1.
    expect(at).toBeLessThan(lines.findIndex((l) => l.startsWith('STEP')));
    // The name as given, and how: stated to an API open without a token, not verified.
    expect(shown.out).toContain('plan v1 approved by “Ada Lovelace” (given without signing in)');
    expect((await edgeplan(['events', id])).out).toMatch(
      /ApprovalGranted\s+by approver “Ada Lovelace” \(given without signing in\)$/m,
    );

    // approve prints the same before it approves; the name from EDGEPLAN_APPROVER.
    const second = await edgeplan(['approve', id], { EDGEPLAN_APPROVER: 'Grace Hopper' });
    expect(second.code).toBe(0);
    const out = second.out.split('\n');
    expect(out[0]).toMatch(/^waiting for approval of plan v2 /);
    expect(out.slice(1, 6)).toEqual(changes);
    // Then what the approval did (the run may have finished v2's steps by the time it answers).
    expect(out[6]).toMatch(new RegExp(`^${id} {2}(running|completed)$`));
    await waitFor(id, (r) => r.status === 'completed');
    const { events } = (await api('GET', `/v1/runs/${id}/events?limit=1000`)) as { events: Json[] };
    expect(
      events.filter((e) => e.event_type === 'ApprovalGranted').map((e) => (e.payload as Json).approver),
    ).toEqual(['Ada Lovelace', 'Grace Hopper']);
    const done = await edgeplan(['show', id]);
    expect(done.code).toBe(0);
    expect(done.out).toContain('plan v2 approved by “Grace Hopper”');
    expect(done.out).not.toContain('waiting for approval');

    // A name the API refuses (a line break would forge a line of show) is said, and exits 1.
    const bad = await edgeplan(['reject', id, '--as', 'Eve\napproved by root']);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('approver');
  });
});
