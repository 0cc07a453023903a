/**
 * The `/mcp` tools that drive a run after it started — wait_for_run, get_run_events, answer_input,
 * retry_run, list_runs, replan_run (refused here: no planner; its revision is in workers-llm), and
 * approve_run's reject — through the SDK's Client, the real routes, Durable Objects and queue. Each
 * happy path, an unknown run (not_found) and bad arguments (invalid_request).
 */
import { describe, expect, it } from 'vitest';
import type { Json } from './helpers';
import { call, connect, echo } from './mcp-client';

const ASK = { id: 'ask', action: 'human.input', parameters: { prompt: 'Whom shall I greet?' } };
const FROM = {
  id: 'from',
  action: 'human.input',
  parameters: { prompt: 'From whom?' },
  dependencies: ['ask'],
};
const GREET = echo('greet', { hello: '{{ steps.ask.output }}', from: '{{ steps.from.output }}' }, ['from']);
const NO_RUN = 'run_0123456789abcdef0123456789abcdef';

async function started(client: Awaited<ReturnType<typeof connect>>, plan: Json, config: Json = {}) {
  const r = await call(client, 'start_run', { plan, config });
  expect(r.isError, JSON.stringify(r.structuredContent)).toBeUndefined();
  return r.structuredContent!.run_id as string;
}

describe('/mcp tools that drive a run', () => {
  it('lists them with arguments from the API document, closed where the route would drop a key', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const schema = (name: string) => tools.find((t) => t.name === name)!.inputSchema as Json;
    expect(schema('wait_for_run')).toMatchObject({
      required: ['run_id'],
      additionalProperties: false,
      properties: {
        until: { type: 'string', enum: ['terminal', 'waiting', 'any_change'], default: 'terminal' },
        timeout_s: { type: 'integer', minimum: 1, maximum: 50, default: 25 },
        after: { type: 'integer', minimum: 0 },
      },
    });
    expect(schema('get_run_events').properties).toMatchObject({
      after: { type: 'integer', description: expect.any(String) },
      limit: { type: 'integer', maximum: 1000 },
    });
    const listRuns = schema('list_runs');
    // A query flag is listed as the boolean a model passes; the run status as the API's component.
    expect(listRuns.properties.top_level).toMatchObject({ type: 'boolean', description: expect.any(String) });
    expect(listRuns.properties.status).toEqual({
      $ref: '#/$defs/ListedRunStatus',
      description: expect.stringContaining('`rejected`: the runs whose plan was rejected'),
    });
    expect(listRuns.$defs.ListedRunStatus.enum).toEqual(
      expect.arrayContaining(['awaiting_input', 'rejected']),
    );
    expect(schema('answer_input')).toMatchObject({
      required: ['run_id', 'input'],
      additionalProperties: false,
      properties: {
        input: { description: expect.any(String) },
        step_id: { type: 'string' },
        question_seq: { type: 'integer', minimum: 1 },
        approver: { type: 'string', maxLength: 120 },
      },
    });
    expect(schema('replan_run')).toMatchObject({ required: ['run_id', 'reason'] });
    expect(schema('retry_run').properties).toHaveProperty('step_id');
    // approve_run tells a model where to look before it decides, and takes the decider's name.
    const approve = tools.find((t) => t.name === 'approve_run')!;
    expect(approve.description).toContain('pending_approval');
    expect(approve.description).toContain('"reject"');
    expect(schema('approve_run').properties.approver).toMatchObject({ type: 'string', maxLength: 120 });
    expect(tools.find((t) => t.name === 'get_run')!.description).toContain('wait_for_run');
    await client.close();
  });

  it('answers a failed step’s question by its seq; a late answer to it after a retry asked again is question_closed', async () => {
    const client = await connect();
    const flaky = {
      id: 'f',
      action: 'demo.flaky',
      parameters: { fail_times: 99, key: `mcp-q-${crypto.randomUUID()}` },
    };
    const runId = await started(
      client,
      { goal: 'fail and ask', steps: [flaky] },
      { on_step_failure: 'replan', revision_strategy: 'ask_user', retry_failed_steps: 0 },
    );
    const question = async () => {
      await call(client, 'wait_for_run', { run_id: runId, until: 'waiting', timeout_s: 20 });
      const page = await call(client, 'get_run_events', { run_id: runId });
      return (page.structuredContent!.events as Json[]).findLast((e) => e.event_type === 'InputRequested')!;
    };
    const first = await question();
    const retry = { run_id: runId, input: { action: 'retry' }, step_id: 'f', question_seq: first.seq };
    expect((await call(client, 'answer_input', retry)).isError).toBeUndefined();
    const second = await question();
    expect(second.seq).toBeGreaterThan(first.seq as number);
    const late = await call(client, 'answer_input', { ...retry, input: { action: 'abort' } });
    expect(late).toMatchObject({
      isError: true,
      structuredContent: {
        error: {
          code: 'question_closed',
          details: { question_seq: first.seq, asked_now: second.seq, decided: 'retry' },
        },
      },
    });
    const skip = { run_id: runId, input: { action: 'skip' }, step_id: 'f', question_seq: second.seq };
    expect((await call(client, 'answer_input', skip)).isError).toBeUndefined();
    await client.close();
  });

  it('waits for each human.input question, reads it from the events, answers it, and waits for the end', async () => {
    const client = await connect();
    const runId = await started(client, { goal: 'greet', steps: [ASK, FROM, GREET] });
    /** Waits until the run asks, and reads the question from its events. */
    const question = async () => {
      const waiting = await call(client, 'wait_for_run', { run_id: runId, until: 'waiting', timeout_s: 20 });
      expect(waiting.isError).toBeUndefined();
      expect(waiting.structuredContent).toMatchObject({
        timed_out: false,
        run: { status: 'awaiting_input' },
      });
      const page = await call(client, 'get_run_events', { run_id: runId });
      expect(page.structuredContent!.has_more).toBe(false);
      return (page.structuredContent!.events as Json[]).findLast((e) => e.event_type === 'InputRequested')!;
    };
    const first = await question();
    expect(first.payload).toMatchObject({ step_id: 'ask', prompt: 'Whom shall I greet?' });
    // When it is due and what happens then, told where the agent reads the question and answers it.
    expect(first.payload).toMatchObject({ deadline: expect.any(String), if_unanswered: 'asked_again' });
    const { tools } = await client.listTools();
    const answer = tools.find((t) => t.name === 'answer_input')!.description;
    expect(answer).toContain('payload.deadline');
    expect(answer).toContain('if_unanswered');
    const answered = await call(client, 'answer_input', { run_id: runId, input: 'Ada', step_id: 'ask' });
    // Running, or already asking the next question.
    expect(answered.structuredContent).toMatchObject({
      run_id: runId,
      status: expect.stringMatching(/^(running|awaiting_input)$/),
    });
    const second = await question();
    expect(second.payload).toMatchObject({ step_id: 'from', prompt: 'From whom?' });
    // The first question again: refused, not taken as new information.
    const again = await call(client, 'answer_input', { run_id: runId, input: 'Bob', step_id: 'ask' });
    expect(again).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'conflict', details: { reason: 'input_not_awaited' } } },
    });
    await call(client, 'answer_input', {
      run_id: runId,
      input: 'Grace',
      step_id: 'from',
      approver: 'Grace H.',
    });
    const done = await call(client, 'wait_for_run', { run_id: runId, timeout_s: 20 });
    expect(done.structuredContent).toMatchObject({
      timed_out: false,
      run: { status: 'completed', step_results: { greet: { hello: 'Ada', from: 'Grace' } } },
    });
    // Only what is new: the events after the last one seen, a page at a time.
    const seen = second.seq as number;
    const newer = await call(client, 'get_run_events', { run_id: runId, after: seen, limit: 2 });
    expect(newer.structuredContent).toMatchObject({ has_more: true, next_after: seen + 2 });
    expect((newer.structuredContent!.events as Json[]).map((e) => e.seq)).toEqual([seen + 1, seen + 2]);
    // Who answered: the name given with the second answer, none with the first.
    const all = await call(client, 'get_run_events', { run_id: runId });
    const answers = (all.structuredContent!.events as Json[]).filter((e) => e.event_type === 'InputReceived');
    expect(answers.map((e) => e.payload)).toEqual([
      { input: 'Ada', step_id: 'ask' },
      // An open API (no API_TOKEN): the name as stated, by no one authenticated.
      { input: 'Grace', step_id: 'from', answered_by: 'Grace H.', answered_by_via: 'anonymous' },
    ]);
    await client.close();
  });

  it('answers wait_for_run when the time is up with timed_out and the run as it is', async () => {
    const client = await connect();
    const runId = await started(
      client,
      { goal: 'hold', steps: [echo('a', {})] },
      { require_plan_approval: true },
    );
    const r = await call(client, 'wait_for_run', { run_id: runId, until: 'terminal', timeout_s: 1 });
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toMatchObject({ timed_out: true, run: { status: 'awaiting_approval' } });
    // Already there: answered at once, not after the timeout.
    const there = await call(client, 'wait_for_run', { run_id: runId, until: 'waiting', timeout_s: 50 });
    expect(there.structuredContent).toMatchObject({ timed_out: false, run: { status: 'awaiting_approval' } });
    await client.close();
  });

  it('wakes wait_for_run on the run’s events: any_change after a seq, and the end of a run that was running', async () => {
    const client = await connect();
    const runId = await started(
      client,
      { goal: 'hold', steps: [echo('a', {})] },
      { require_plan_approval: true },
    );
    const before = (await call(client, 'get_run', { run_id: runId })).structuredContent!;
    const change = call(client, 'wait_for_run', {
      run_id: runId,
      until: 'any_change',
      after: before.last_seq,
      timeout_s: 30,
    });
    const terminal = call(client, 'wait_for_run', { run_id: runId, timeout_s: 30 });
    const approved = await call(client, 'approve_run', {
      run_id: runId,
      decision: 'approve',
      approver: 'Ada',
    });
    expect(approved.isError).toBeUndefined();
    const changed = (await change).structuredContent!;
    expect(changed.timed_out).toBe(false);
    expect(changed.run.last_seq).toBeGreaterThan(before.last_seq);
    expect((await terminal).structuredContent).toMatchObject({
      timed_out: false,
      run: { status: 'completed' },
    });
    const events = (await call(client, 'get_run_events', { run_id: runId })).structuredContent!
      .events as Json[];
    expect(events.find((e) => e.event_type === 'ApprovalGranted')?.payload).toMatchObject({
      approver: 'Ada',
    });
    await client.close();
  });

  it('rejects a plan with approve_run after reading pending_approval', async () => {
    const client = await connect();
    const runId = await started(
      client,
      { goal: 'no', steps: [echo('a', {})] },
      { require_plan_approval: true },
    );
    const run = (await call(client, 'get_run', { run_id: runId })).structuredContent!;
    expect(run.pending_approval).toMatchObject({ plan_version: 1, changes: null });
    const rejected = await call(client, 'approve_run', {
      run_id: runId,
      decision: 'reject',
      comment: 'not today',
      approver: 'Ada',
    });
    expect(rejected.structuredContent).toMatchObject({ status: 'cancelled' });
    const done = await call(client, 'wait_for_run', { run_id: runId, timeout_s: 5 });
    expect(done.structuredContent).toMatchObject({
      timed_out: false,
      run: { status: 'cancelled', termination_reason: 'plan_rejected' },
    });
    await client.close();
  });

  it('retries a failed run from its failed step with retry_run, keeping what completed', async () => {
    const client = await connect();
    const key = `mcp-retry-${crypto.randomUUID()}`;
    const runId = await started(
      client,
      {
        goal: 'flaky',
        steps: [
          echo('a', { n: 1 }),
          { id: 'f', action: 'demo.flaky', parameters: { fail_times: 1, key }, dependencies: ['a'] },
        ],
      },
      { retry_failed_steps: 0 },
    );
    const failed = await call(client, 'wait_for_run', { run_id: runId, timeout_s: 20 });
    expect(failed.structuredContent).toMatchObject({ run: { status: 'failed' } });
    const retried = await call(client, 'retry_run', { run_id: runId, step_id: 'f' });
    expect(retried.structuredContent).toMatchObject({
      status: expect.stringMatching(/^(running|completed)$/),
    });
    const done = await call(client, 'wait_for_run', { run_id: runId, timeout_s: 20 });
    expect(done.structuredContent).toMatchObject({
      run: { status: 'completed', steps: { a: { attempts: 1 } } },
    });
    const twice = await call(client, 'retry_run', { run_id: runId });
    expect(twice).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'conflict', details: { reason: 'run_not_retryable' } } },
    });
    await client.close();
  });

  it('lists runs with list_runs, filtered and paged, a flag given as a boolean', async () => {
    const client = await connect();
    const runId = await started(client, { goal: 'listed', steps: [echo('a', {})] });
    await call(client, 'wait_for_run', { run_id: runId, timeout_s: 20 });
    let listed: Json[] = [];
    // The index is written by the run's object within moments of its end.
    for (let i = 0; i < 100 && !listed.some((r) => r.run_id === runId); i++) {
      const page = await call(client, 'list_runs', { status: 'completed', top_level: true, limit: 200 });
      expect(page.isError).toBeUndefined();
      listed = page.structuredContent!.runs as Json[];
      await new Promise((res) => setTimeout(res, 20));
    }
    expect(listed.find((r) => r.run_id === runId)).toMatchObject({ status: 'completed', goal: 'listed' });
    expect(listed.every((r) => r.status === 'completed' && r.parent_run_id === null)).toBe(true);
    const first = await call(client, 'list_runs', { limit: 1 });
    expect(first.structuredContent).toMatchObject({
      runs: [expect.any(Object)],
      next_cursor: expect.any(String),
    });
    await client.close();
  });

  it('answers a run tool naming no run with not_found', async () => {
    const client = await connect();
    const calls: [string, Json][] = [
      ['wait_for_run', { run_id: NO_RUN, timeout_s: 1 }],
      ['get_run_events', { run_id: NO_RUN }],
      ['answer_input', { run_id: NO_RUN, input: 'x' }],
      ['replan_run', { run_id: NO_RUN, reason: 'x' }],
      ['retry_run', { run_id: NO_RUN }],
    ];
    for (const [name, args] of calls) {
      const r = await call(client, name, args);
      expect(r, name).toMatchObject({ isError: true, structuredContent: { error: { code: 'not_found' } } });
    }
    await client.close();
  });

  it('refuses bad arguments with invalid_request saying what to send', async () => {
    const client = await connect();
    const runId = await started(client, { goal: 'g', steps: [ASK] });
    const refusals: [string, Json, string][] = [
      ['wait_for_run', { run_id: runId, until: 'forever' }, 'until'],
      ['wait_for_run', { run_id: runId, timeout_s: 51 }, 'timeout_s'],
      [
        'wait_for_run',
        { run_id: runId, timout_s: 5 },
        'Unknown argument "timout_s" (did you mean "timeout_s"?)',
      ],
      ['get_run_events', { run_id: runId, after: -1 }, 'after'],
      ['get_run_events', { run_id: runId, limit: { n: 1 } }, 'limit must be a string, a number or a boolean'],
      ['answer_input', { run_id: runId, step_id: 'ask' }, 'input is required'],
      ['answer_input', { run_id: runId, input: 'x', stepid: 'ask' }, 'did you mean "step_id"?'],
      ['replan_run', { run_id: runId }, 'reason'],
      ['retry_run', { run_id: runId, step_id: 5 }, 'step_id'],
      ['list_runs', { limit: 0 }, 'limit'],
      ['list_runs', { limt: 5 }, 'did you mean "limit"?'],
      ['list_runs', { top_level: true, parent_run_id: runId }, 'top_level'],
      ['get_run_events', {}, 'run_id is required'],
      // Reads without a body: an argument they do not take was dropped unseen, the call answered as if fine.
      ['get_run', { run_id: runId, view: 'steps' }, 'Unknown argument "view"; the arguments are run_id'],
      ['list_tools', { filter: 'demo' }, 'Unknown argument "filter"; this tool takes no arguments'],
    ];
    for (const [name, args, says] of refusals) {
      const r = await call(client, name, args);
      expect(r, `${name} ${JSON.stringify(args)}`).toMatchObject({
        isError: true,
        structuredContent: { error: { code: 'invalid_request', message: expect.stringContaining(says) } },
      });
    }
    // The run was left as it was: still asking.
    const run = await call(client, 'wait_for_run', { run_id: runId, until: 'waiting', timeout_s: 20 });
    expect(run.structuredContent).toMatchObject({ run: { status: 'awaiting_input' } });
    await client.close();
  });

  it('refuses replan_run without a planner, saying so (planning_unavailable)', async () => {
    const client = await connect();
    const runId = await started(client, { goal: 'g', steps: [ASK] });
    await call(client, 'wait_for_run', { run_id: runId, until: 'waiting', timeout_s: 20 });
    const r = await call(client, 'replan_run', { run_id: runId, reason: 'greet everyone' });
    expect(r).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'planning_unavailable' } },
    });
    await client.close();
  });
});
