/**
 * What the `edgeplan` command tells a person who was not watching, against `wrangler dev` with a
 * scripted LLM (the only part not real): a step a revision replaced stays in `show` with its attempts,
 * its error and why; who approved and what their edit changed; a cancelled run's step interrupted, not
 * running; a human.input step's answer; the way from a parent run to its child and back. And the exit
 * codes a script relies on (SPEC §8): `run --goal … --no-watch` waits for the plan and exits 3 when it
 * awaits approval (1 when planning failed), and `events <id>` exits with the run's status (3: waiting).
 */
import { describe, expect, it } from 'vitest';
import { cliSetup } from './cli-setup';
import { describedEcho as echo } from '../fixtures/echo-steps';

type Json = Record<string, unknown>;
const {
  edgeplan: edgeplanAsync,
  edgeplanSync: edgeplan,
  edgeplanOnTerminal,
  edgeplanOnTerminalAnswering,
  api,
  llm,
} = cliSetup('cli-history');

const start = async (body: unknown) => (await api('POST', '/v1/runs', body)).run_id as string;
async function waitForStatus(runId: string, status: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if ((await api('GET', `/v1/runs/${runId}`)).status === status) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${runId} never reached ${status}`);
}

describe('edgeplan tells what a run did', { timeout: 60_000 }, () => {
  it('show says the steps of a rejected run were skipped by the rejection, not by a cancel', async () => {
    const id = await start({ plan: { steps: [echo('a')] }, config: { require_plan_approval: true } });
    await waitForStatus(id, 'awaiting_approval');
    expect(edgeplan(['reject', id, '-m', 'wrong team']).code).toBe(0);
    const shown = edgeplan(['show', id]);
    expect(shown.out).toMatch(/^a\s+skipped\s+skipped: the plan was rejected before it ran$/m);
  });

  it('show keeps a step a revision replaced: its attempts, its error, the version that replaced it and why', async () => {
    llm.script('cli-revised', [
      JSON.stringify({
        steps: [
          {
            id: 'fetch',
            description: 'fetch',
            action: 'demo.flaky',
            parameters: { fail_times: 9, key: 'cli-history-revised' },
            dependencies: [],
          },
          echo('use', ['fetch']),
        ],
      }),
      JSON.stringify({ steps: [echo('fetch_mirror'), echo('use', ['fetch_mirror'])] }),
    ]);
    const id = await start({
      goal: 'cli-revised: fetch and use',
      config: { retry_failed_steps: 1, retry_delay: 0.05 },
    });
    await waitForStatus(id, 'completed');
    const shown = edgeplan(['show', id]);
    expect(shown.err).toBe('');
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/plan v2/);
    expect(shown.out).toMatch(/^fetch_mirror\s+completed/m);
    // The failed step, though v2 dropped it: two attempts, and which version replaced it and why.
    expect(shown.out).toMatch(/replaced by a later plan version \(1\):/);
    expect(shown.out).toMatch(/✖ fetch\s+failed ×2/);
    expect(shown.out).toMatch(/v1, removed by v2 \(revision\): step "fetch" failed: .*attempt 2/);
    // `runs show` says the same.
    expect(edgeplan(['runs', 'show', id]).out).toBe(shown.out);

    const events = edgeplan(['events', id]);
    expect(events.code).toBe(0);
    expect(events.out).toMatch(
      /RevisionRequested\s+fetch\s+step_failure → replan_remaining: step "fetch" failed/,
    );
    expect(events.out).toMatch(/PlanUpdated\s+2 steps \(v2, revision\): step "fetch" failed/);
    // A watch of the ended run (piped) replays every line of its history, the failed attempts first.
    const watched = edgeplan(['watch', id]);
    expect(watched.code).toBe(0);
    expect(watched.out).toMatch(
      /ToolReturned\s+fetch\s+error demo_flaky[\s\S]*ToolReturned\s+fetch\s+error demo_flaky/,
    );
  });

  it('run --goal --no-watch waits for the plan: exit 3 awaiting approval, 1 when planning failed', async () => {
    llm.script('cli-needs-approval', [JSON.stringify({ steps: [echo('only')] })]);
    const waiting = await edgeplanAsync([
      'run',
      '--goal',
      'cli-needs-approval: one step',
      '--config',
      'require_plan_approval=true',
      '--no-watch',
    ]);
    expect(waiting.err).toBe('');
    expect(waiting.out).toMatch(/^run_[A-Za-z0-9]+ {2}awaiting_approval$/m);
    expect(waiting.code).toBe(3);
    const id = waiting.out.trim().split(/\s+/)[0]!;
    // The same as JSON, for a script that parses it.
    llm.script('cli-needs-approval-json', [JSON.stringify({ steps: [echo('only')] })]);
    const json = await edgeplanAsync([
      'run',
      '--goal',
      'cli-needs-approval-json: one step',
      '--config',
      'require_plan_approval=true',
      '--no-watch',
      '--json',
    ]);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.out)).toMatchObject({ status: 'awaiting_approval' });

    // `events` without --follow on the waiting run: its lines, and exit 3 — someone must act.
    const events = edgeplan(['events', id]);
    expect(events.out).toMatch(/ApprovalRequested\s+plan v1/);
    expect(events.code).toBe(3);
    expect(edgeplan(['approve', id]).code).toBe(0);
    await waitForStatus(id, 'completed');
    const after = edgeplan(['events', id]);
    expect(after.out).toMatch(/ApprovalGranted\s+by approver/);
    expect(after.code).toBe(0);

    // Nothing the planner can use: the run fails planning, and the command says so (exit 1).
    llm.script('cli-never-plans', ['no json here', 'still nothing', 'nothing again']);
    const failed = await edgeplanAsync(['run', '--goal', 'cli-never-plans: anything', '--no-watch']);
    expect(failed.out).toMatch(/^run_[A-Za-z0-9]+ {2}failed$/m);
    expect(failed.code).toBe(1);
  });

  it('run --goal --no-watch gives up waiting for the plan after --timeout: the run line, why on stderr, exit 1', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // The plan streams in and stops half-way: the run stays planning.
    llm.script('cli-slow-plan', [
      { pieces: ['{"type":"step",', `"step":${JSON.stringify(echo('only'))}}\n`], held },
    ]);
    try {
      const r = await edgeplanAsync([
        'run',
        '--goal',
        'cli-slow-plan: one step',
        '--no-watch',
        '--timeout',
        '2',
      ]);
      expect(r.out).toMatch(/^run_[A-Za-z0-9]+ {2}planning$/m);
      const id = r.out.trim().split(/\s+/)[0]!;
      expect(r.err).toBe(
        `edgeplan: ${id} is still planning after 2 s; it goes on. Follow it with \`edgeplan watch ${id}\`, or wait longer with --timeout <seconds>\n`,
      );
      expect(r.code).toBe(1);
      // It goes on: let the plan arrive, and the run runs it.
      release();
      await waitForStatus(id, 'completed');
    } finally {
      release();
    }
  });

  it('run --timeout takes whole seconds: anything else is a usage error (exit 2)', () => {
    const r = edgeplan(['run', '--goal', 'x', '--no-watch', '--timeout', '1.5']);
    expect([r.code, r.err]).toEqual([2, 'edgeplan: --timeout takes a whole number, 1–86400 (got "1.5")\n']);
  });

  it('show says the run’s input, what the plan’s {{ input.… }} read, under its goal', async () => {
    const id = await start({
      plan: {
        goal: 'page a team',
        steps: [{ id: 'page', action: 'demo.echo', parameters: { t: '{{ input.team }}' } }],
      },
      input: { team: 'sre-checkout', note: 'x'.repeat(300) },
      config: { require_plan_approval: true },
    });
    await waitForStatus(id, 'awaiting_approval');
    const shown = edgeplan(['show', id]).out;
    expect(shown).toMatch(/^goal: page a team\ninput: \{"team":"sre-checkout","note":"x+…\n/m);
    expect(shown.split('\n').find((l) => l.startsWith('input: '))).toHaveLength(7 + 200);
    // A run with no input says none.
    const none = await start({ plan: { goal: 'no input', steps: [echo('a')] } });
    await waitForStatus(none, 'completed');
    expect(edgeplan(['show', none]).out).not.toMatch(/^input:/m);
  });

  it('show says who approved, with the comment, and what the edit changed, and the wait apart from the run; the removed step stays listed', async () => {
    const id = await start({
      plan: {
        goal: 'approve with an edit',
        steps: [
          { id: 'a', action: 'demo.echo', parameters: { v: 1 } },
          { id: 'risky', action: 'demo.echo', parameters: { v: 'prod' } },
        ],
      },
      config: { require_plan_approval: true },
    });
    await waitForStatus(id, 'awaiting_approval');
    const run = await api('GET', `/v1/runs/${id}`);
    const plan = run.plan as { steps: { id: string; parameters: Json }[] };
    const edited = { ...plan, steps: [{ ...plan.steps[0]!, parameters: { v: 2 } }] };
    await api('POST', `/v1/runs/${id}/approval`, {
      decision: 'modify',
      plan: edited,
      comment: 'no production step',
    });
    await waitForStatus(id, 'completed');
    const shown = edgeplan(['show', id]);
    expect(shown.code).toBe(0);
    // How long it ran, and apart from that how long it waited for the approval.
    expect(shown.out).toMatch(
      new RegExp(`^${id}  completed  \\S+ (ms|s) running · waited \\S+ (ms|s) for approval  plan v2$`, 'm'),
    );
    // Nobody named: how the decision came (an API open without a token here), not "by the approver".
    expect(shown.out).toMatch(/^approved through the API without a token: no production step$/m);
    expect(shown.out).toMatch(/^edited into v2: changed a; removed risky$/m);
    expect(shown.out).not.toContain('the approver');
    expect(shown.out).toMatch(/○ risky\s+not run/);
    expect(shown.out).toMatch(/v1, removed by v2 \(approver’s edit\): no production step/);
    // The live view on a terminal (`watch`) says it the same way: the wait for approval apart.
    const live = edgeplanOnTerminal(['watch', id]);
    expect(live.code).toBe(0);
    expect(live.out).toMatch(
      new RegExp(`^edgeplan ${id}  completed  \\S+ (ms|s) running · waited \\S+ (ms|s) for approval$`, 'm'),
    );
    expect(live.out).toMatch(/^ edited into v2: changed a; removed risky$/m);
    const events = edgeplan(['events', id]);
    expect(events.out).toMatch(/PlanUpdated\s+1 step \(v2, approval_edit\): no production step/);
    expect(events.out).toMatch(
      /ApprovalGranted\s+by approver \(through the API without a token\): no production step/,
    );
  });

  it('show: a cancelled run’s waiting step is interrupted, not running; a question’s answer and who gave it; skips in words', async () => {
    const cancelled = await start({
      plan: {
        goal: 'cancel while it asks',
        steps: [{ id: 'wait', action: 'human.input', parameters: { prompt: 'Anyone?' } }],
      },
    });
    await waitForStatus(cancelled, 'awaiting_input');
    await api('POST', `/v1/runs/${cancelled}/cancel`, { reason: 'nobody answers' });
    await waitForStatus(cancelled, 'cancelled');
    const c = edgeplan(['show', cancelled]);
    expect(c.code).toBe(1);
    expect(c.out).toMatch(/cancelled \(nobody answers\)/);
    expect(c.out).toMatch(/^wait\s+interrupted\s+×1\s+was running when the run ended$/m);

    const asked = await start({
      plan: {
        goal: 'ask one, skip one',
        steps: [
          { id: 'city', action: 'human.input', parameters: { prompt: 'Which city?' } },
          { id: 'more', action: 'human.input', parameters: { prompt: 'More?' }, when: 'input.more == true' },
        ],
      },
      input: { more: false },
    });
    await waitForStatus(asked, 'awaiting_input');
    // While it waits, show says the question and how to answer it (its events have them; the snapshot not).
    const waiting = edgeplan(['show', asked]);
    expect(waiting.code).toBe(3);
    // …and by when, and what happens then: the question times out a day after it was asked, retried.
    expect(waiting.out).toMatch(
      new RegExp(
        `${asked} waits for input \\(Which city\\?\\)\\. Answer by \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC: ` +
          `if nobody does, the step is asked again \\(1 retry left\\)\\. Answer with: edgeplan input ${asked} <answer> --step city`,
      ),
    );
    // Who answered: the name given with --as, shown where the answer is.
    expect(edgeplan(['input', asked, 'Oslo', '--step', 'city', '--as', 'Ada Lovelace']).code).toBe(0);
    await waitForStatus(asked, 'completed');
    const a = edgeplan(['show', asked]);
    // And how the name was established: stated to an API open without a token.
    expect(a.out).toMatch(
      /^city\s+completed\s+×1\s+\S+\s+answered: "Oslo" \(by “Ada Lovelace”, given without signing in\)$/m,
    );
    expect(a.out).toMatch(/^more\s+skipped\s+skipped: its `when` condition was false$/m);
    expect(edgeplan(['events', asked]).out).toMatch(
      /InputReceived\s+city\s+answer: "Oslo" — answered by “Ada Lovelace” \(given without signing in\)$/m,
    );
  });

  it('asks again on a terminal when an answer does not fit the JSON Schema the question gave', async () => {
    const schema = { type: 'object', properties: { refund: { type: 'boolean' } }, required: ['refund'] };
    const id = await start({
      plan: {
        goal: 'ask with a schema',
        steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'Refund?', schema } }],
      },
    });
    await waitForStatus(id, 'awaiting_input');
    const r = await edgeplanOnTerminalAnswering(
      ['watch', id],
      [
        { after: /The answer must fit the JSON Schema[^]*Refund\?/, type: 'maybe\r' },
        { after: /does not fit the schema its question gave[^]*Refund\?/, type: '{"refund": true}\r' },
      ],
    );
    expect(r.out).toContain(`The answer must fit the JSON Schema ${JSON.stringify(schema)}`);
    // By when, above the question: a day from its attempt, then asked again (one retry by default).
    expect(r.out).toMatch(
      /Answer by \d{4}-\d\d-\d\d \d\d:\d\d UTC: if nobody does, the step is asked again \(1 retry left\)\.[^]*Refund\?/,
    );
    expect(r.out).toContain(
      'The answer to step "ask" does not fit the schema its question gave: (root): must be an object, not a string',
    );
    expect(r.code).toBe(0);
    expect((await api('GET', `/v1/runs/${id}`)).step_results).toEqual({ ask: { refund: true } });
  });

  it('Ctrl-C at the approval question says nothing was decided, below the choice it was on (130)', async () => {
    const id = await start({ plan: { steps: [echo('a')] }, config: { require_plan_approval: true } });
    await waitForStatus(id, 'awaiting_approval');
    const r = await edgeplanOnTerminalAnswering(['watch', id], [{ after: /Decide later/, type: '\x03' }]);
    expect(r.code).toBe(130);
    // Without colour the cancelled question still shows "Approve"; the next line says it was not chosen.
    expect(r.out).toMatch(/Approve[^]*Nothing decided \(Ctrl-C\)[^]*Left run_\w+ waiting/);
    expect((await api('GET', `/v1/runs/${id}`)).status).toBe('awaiting_approval');
  });

  it('show says a step’s fallback ran', async () => {
    const id = await start({
      plan: {
        goal: 'fall back',
        steps: [
          {
            id: 'primary',
            action: 'demo.flaky',
            parameters: { fail_times: 50, key: 'cli-history-fallback' },
            fallback_action: { action: 'demo.echo', parameters: { from: 'fallback' } },
          },
        ],
      },
      config: { retry_failed_steps: 0 },
    });
    await waitForStatus(id, 'completed');
    expect(edgeplan(['show', id]).out).toMatch(/^primary\s+completed\s+×2\s+\S+\s+via fallback demo\.echo$/m);
    expect(edgeplan(['events', id]).out).toMatch(/StepScheduled\s+primary\s+fallback demo\.echo attempt 2/);
  });

  it('show says which attempt of a retry a step is on, not only its number over the run', async () => {
    const id = await start({
      plan: {
        goal: 'retry a flaky step',
        steps: [
          { id: 'f', action: 'demo.flaky', parameters: { fail_times: 2, key: `cli-round-${Date.now()}` } },
        ],
      },
      config: { retry_failed_steps: 1, retry_delay: 0.05 },
    });
    await waitForStatus(id, 'failed');
    expect(edgeplan(['show', id]).out).toMatch(/^f\s+failed\s+×2\s/m);
    expect(edgeplan(['retry', id]).code).toBe(0);
    await waitForStatus(id, 'completed');
    // Three attempts over the run, one of them in the retry (the first two failed before it).
    expect(edgeplan(['show', id]).out).toMatch(/^f\s+completed\s+×3 \(1 in retry 1\)\s/m);
  });

  it('retry, approve and input --watch follow the run to its end and exit with its outcome; retry follows by default on a terminal', async () => {
    const flaky = (key: string, failTimes: number) => ({
      plan: {
        goal: 'retry and follow',
        steps: [{ id: 'f', action: 'demo.flaky', parameters: { fail_times: failTimes, key } }],
      },
      config: { retry_failed_steps: 0 },
    });
    // Fails once, then completes on the retry: exit 0, and the events up to the end are printed.
    const once = await start(flaky(`cli-follow-once-${Date.now()}`, 1));
    await waitForStatus(once, 'failed');
    const retried = await edgeplanAsync(['retry', once, '--watch']);
    expect(retried.err).toBe('');
    expect(retried.code).toBe(0);
    // The retry's answer first (the run may have ended by then: the step is quick), then its events.
    expect(retried.out.split('\n')[0]).toMatch(new RegExp(`^${once}  (running|completed)$`));
    expect(retried.out).toMatch(/RunResumed[\s\S]*RunTerminated\s+completed/);
    // Fails again on the retry: the run's outcome is the exit code (1), not the retry's acceptance (0).
    const twice = await start(flaky(`cli-follow-twice-${Date.now()}`, 2));
    await waitForStatus(twice, 'failed');
    const failedAgain = await edgeplanAsync(['retry', twice, '--watch']);
    expect(failedAgain.code).toBe(1);
    expect(failedAgain.out).toMatch(/RunResumed[\s\S]*RunTerminated\s+failed: step_failed[^\n]*attempt 2 of/);
    // Without --watch (not a terminal): the action's answer, at once.
    const third = await start(flaky(`cli-follow-third-${Date.now()}`, 1));
    await waitForStatus(third, 'failed');
    expect(edgeplan(['retry', third]).out).toMatch(new RegExp(`^${third}  (running|completed)\n$`));
    // On a terminal a retry is followed, as `run` follows what it starts: the live view to the end.
    const fourth = await start(flaky(`cli-follow-fourth-${Date.now()}`, 1));
    await waitForStatus(fourth, 'failed');
    const live = edgeplanOnTerminal(['retry', fourth]);
    expect(live.code).toBe(0);
    expect(live.out).toMatch(new RegExp(`^edgeplan ${fourth}  completed`, 'm'));
    // Approving and following: the approved run's end.
    const approval = await start({
      plan: { goal: 'approve and follow', steps: [echo('a')] },
      config: { require_plan_approval: true },
    });
    await waitForStatus(approval, 'awaiting_approval');
    const approved = await edgeplanAsync(['approve', approval, '--watch']);
    expect(approved.code).toBe(0);
    expect(approved.out).toMatch(/ApprovalGranted[\s\S]*RunTerminated\s+completed/);
    // Answering a question and following: the run's end after the answer.
    const question = await start({
      plan: {
        goal: 'answer and follow',
        steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'Which city?' } }],
      },
    });
    await waitForStatus(question, 'awaiting_input');
    const answered = await edgeplanAsync(['input', question, 'Paris', '--step', 'ask', '--watch']);
    expect(answered.code).toBe(0);
    expect(answered.out).toMatch(/InputReceived[\s\S]*RunTerminated\s+completed/);
  });

  it('watch of an ended run on a terminal draws the run as it ended, not its replay timed against now', async () => {
    const id = await start({
      plan: { goal: 'over long ago', steps: [echo('first'), echo('second', ['first'])] },
    });
    await waitForStatus(id, 'completed');
    const live = edgeplanOnTerminal(['watch', id]);
    expect(live.code).toBe(0);
    expect(live.out).toMatch(new RegExp(`^edgeplan ${id}  completed`, 'm'));
    // Drawn while the log replayed, a frame showed `first` running since the run began — "29.1s"
    // for a step of a few milliseconds once the run was half a minute old.
    expect(live.out).not.toMatch(/⠋|⠙|⠹|⠸|⠼|⠴|⠦|⠧|⠇|⠏/);
    expect(live.out).toMatch(/^ ✔ first\s+demo\.echo\s+\d+ms/m);
  });

  it('show leads from a parent run to its child run and back', async () => {
    const parent = await start({
      plan: {
        goal: 'delegate',
        steps: [
          {
            id: 'delegate',
            action: 'agent.dispatch',
            parameters: { goal: 'child work', plan: { steps: [echo('c1')] } },
          },
        ],
      },
    });
    await waitForStatus(parent, 'completed');
    const p = edgeplan(['show', parent]);
    const child = /^child run (run_[A-Za-z0-9]+) {2}completed {2}\(step delegate\): edgeplan show \1$/m.exec(
      p.out,
    );
    expect(child).not.toBeNull();
    const back = edgeplan(['show', child![1]!]);
    expect(back.out).toContain(`child of ${parent} (step delegate)`);
  });
});
