import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/model';
import { replay, snapshotRun } from '../../src/engine/snapshot';
import { echo, harness } from './engine-helpers';

type H = ReturnType<typeof harness>;
const send = (h: H, input: Parameters<H['machine']['handle']>[0]) => {
  const r = h.machine.handle(input);
  h.events.push(...r.events);
  h.commands.push(...r.commands);
  return r;
};
const nextVersion = (h: H, steps: Plan['steps']): Plan => ({
  ...h.state.plan!,
  version: h.state.plan!.version + 1,
  steps,
});
const step = (id: string, deps: string[] = []) => ({
  id,
  description: id,
  action: 'demo.echo',
  parameters: { v: id },
  dependencies: deps,
});

describe('approval', () => {
  it('waits in awaiting_approval and starts when approved', () => {
    const h = harness({ steps: [echo('a')] }, { require_plan_approval: true, approval: { timeout_s: 60 } });
    expect(h.state.status).toBe('awaiting_approval');
    expect(h.commands).toContainEqual({ type: 'approval_requested', deadline_at: h.now() + 60_000 });
    expect(h.commands.some((c) => c.type === 'dispatch')).toBe(false);
    send(h, { type: 'approval', decision: 'approve', comment: 'lgtm' });
    expect(h.state.status).toBe('running');
    expect(h.commands.at(-1)).toMatchObject({ type: 'dispatch', step_id: 'a' });
  });

  it('records the name an approver gave on their decision, and none when they gave none', () => {
    const named = harness({ steps: [echo('a')] }, { require_plan_approval: true });
    send(named, { type: 'approval', decision: 'approve', approver: 'Ada' });
    expect(named.events.find((e) => e.event_type === 'ApprovalGranted')?.payload).toEqual({
      comment: undefined,
      by: 'approver',
      approver: 'Ada',
    });
    const anonymous = harness({ steps: [echo('a')] }, { require_plan_approval: true });
    send(anonymous, { type: 'approval', decision: 'reject', comment: 'no' });
    const rejected = anonymous.events.find((e) => e.event_type === 'ApprovalRejected')?.payload;
    expect(rejected).toEqual({ comment: 'no', by: 'approver' });
  });

  it('records how the approver’s name was established beside it, and without a name how the decision came', () => {
    const onLink = harness({ steps: [echo('a')] }, { require_plan_approval: true });
    send(onLink, { type: 'approval', decision: 'reject', approver: 'Olga', approver_via: 'link' });
    expect(onLink.events.find((e) => e.event_type === 'ApprovalRejected')?.payload).toMatchObject({
      approver: 'Olga',
      approver_via: 'link',
    });
    const unnamed = harness({ steps: [echo('a')] }, { require_plan_approval: true });
    send(unnamed, { type: 'approval', decision: 'approve', approver_via: 'token' });
    const granted = unnamed.events.find((e) => e.event_type === 'ApprovalGranted')?.payload;
    // Told "approved with the API token" rather than "by the approver", whom nobody named.
    expect(granted).toEqual({ comment: undefined, by: 'approver', approver_via: 'token' });
  });

  it('replays a decision with its approver_via to the state the run had', () => {
    const h = harness({ steps: [echo('a')] }, { require_plan_approval: true });
    send(h, { type: 'approval', decision: 'approve', approver: 'Ada', approver_via: 'access' });
    const r = replay(h.events);
    expect(snapshotRun(r.state, r.results)).toEqual(h.snapshot());
  });

  it('cancels the run when the plan is rejected', () => {
    const h = harness({ steps: [echo('a')] }, { require_plan_approval: true });
    send(h, { type: 'approval', decision: 'reject', comment: 'no' });
    expect(h.state.status).toBe('cancelled');
    expect(h.types().slice(-2)).toEqual(['ApprovalRejected', 'RunTerminated']);
  });

  it('runs the modified plan as a new version when the approver edits it', () => {
    const h = harness({ steps: [echo('a'), echo('b')] }, { require_plan_approval: true });
    send(h, { type: 'approval', decision: 'modify', plan: nextVersion(h, [step('b')]) });
    expect(h.state.plan!.version).toBe(2);
    expect([...h.state.steps.keys()]).toEqual(['b']);
    expect(h.state.revision_count).toBe(0);
    expect(h.types()).toContain('PlanUpdated');
  });

  it('applies the default action when the deadline passes', () => {
    const approve = harness(
      { steps: [echo('a')] },
      { require_plan_approval: true, approval: { timeout_s: 10, default_action: 'approve' } },
    );
    expect(approve.machine.nextWakeAt()).toBe(approve.now() + 10_000);
    approve.advance(9_999);
    expect(approve.state.status).toBe('awaiting_approval');
    approve.advance(1);
    expect(approve.state.status).toBe('running');
    const reject = harness(
      { steps: [echo('a')] },
      { require_plan_approval: true, approval: { timeout_s: 10 } },
    );
    reject.advance(10_000);
    expect(reject.state.status).toBe('cancelled');
  });

  it('refuses a decision when the run is not waiting for one', () => {
    const h = harness({ steps: [echo('a')] });
    expect(h.machine.handle({ type: 'approval', decision: 'approve' }).refused?.code).toBe('conflict');
  });
});

describe('approval of revisions (approval.revisions: "ask")', () => {
  const asking = {
    require_plan_approval: true,
    approval: { timeout_s: 60, revisions: 'ask' as const },
    on_step_failure: 'replan' as const,
    retry_failed_steps: 0,
    execution_mode: 'parallel' as const,
  };
  /** A run approved once whose step b failed while c still runs, then revised to b2. */
  function revised(config: typeof asking | Omit<typeof asking, 'approval'> = asking) {
    const h = harness({ steps: [echo('a'), echo('b'), echo('c', { dependencies: ['a'] })] }, config);
    send(h, { type: 'approval', decision: 'approve' });
    h.ok('a', 'A');
    h.begin('c');
    h.fail('b');
    const [a, , c] = h.state.plan!.steps;
    send(h, {
      type: 'revise',
      plan: nextVersion(h, [a!, step('b2'), c!]),
      reason: 'use b2',
      kind: 'revision',
    });
    return h;
  }

  it('holds a revised plan for the approver: what runs finishes, nothing new starts until approved', () => {
    const h = revised();
    expect(h.state.status).toBe('awaiting_approval');
    expect(h.types().slice(-2)).toEqual(['PlanUpdated', 'ApprovalRequested']);
    expect(h.events.at(-1)!.payload).toEqual({ deadline_at: h.now() + 60_000, plan_version: 2 });
    expect(h.commands.at(-1)).toEqual({ type: 'approval_requested', deadline_at: h.now() + 60_000 });
    expect(h.commands.some((c) => c.type === 'dispatch' && c.step_id === 'b2')).toBe(false);
    // The step that was running when the revision came is recorded while the run waits.
    h.ok('c', 'C');
    expect(h.status('c')).toBe('completed');
    expect(h.commands.some((c) => c.type === 'dispatch' && c.step_id === 'b2')).toBe(false);
    send(h, { type: 'approval', decision: 'approve', comment: 'b2 is fine' });
    expect(h.state.status).toBe('running');
    expect(h.commands.at(-1)).toMatchObject({ type: 'dispatch', step_id: 'b2' });
    h.ok('b2', 'B2');
    expect(h.state.status).toBe('completed');
    expect(h.snapshot().step_results).toEqual({ a: 'A', c: 'C', b2: 'B2' });
  });

  it('ends the run cancelled (plan_rejected) when the revision is rejected or its deadline passes', () => {
    const rejected = revised();
    send(rejected, { type: 'approval', decision: 'reject', comment: 'no b2' });
    expect(rejected.state.status).toBe('cancelled');
    expect(rejected.state.termination_reason).toBe('plan_rejected');
    const timedOut = revised();
    timedOut.ok('c', 'C');
    timedOut.advance(60_000);
    expect(timedOut.state.status).toBe('cancelled');
    expect(timedOut.snapshot().step_results).toEqual({ a: 'A', c: 'C' });
  });

  it('runs a revision unasked by default, and a rollback or a version that changes no step unasked always', () => {
    const { approval: _a, ...unasked } = asking;
    const h = revised({ ...unasked, approval: { timeout_s: 60 } } as typeof asking);
    expect(h.state.status).toBe('running');
    expect(h.commands.at(-1)).toMatchObject({ type: 'dispatch', step_id: 'b2' });
    // Approved v2; then a v3 that only removes a step, and a rollback: asked of nobody.
    const r = revised();
    send(r, { type: 'approval', decision: 'approve' });
    const [a, b2] = r.state.plan!.steps;
    send(r, { type: 'revise', plan: nextVersion(r, [a!, b2!]), reason: 'no c', kind: 'revision' });
    expect(r.state.status).toBe('running');
    const back = { ...r.state.plan!, version: 4, steps: [step('a'), step('b')] };
    send(r, { type: 'revise', plan: back, reason: 'back', kind: 'rollback' });
    expect(r.state.plan!.version).toBe(4);
    expect(r.state.status).toBe('running');
    expect(r.types().filter((t) => t === 'ApprovalRequested')).toHaveLength(2);
  });

  it('times out an attempt in flight while the revision waits for the approver', () => {
    const h = revised({ ...asking, approval: { timeout_s: 86_400, revisions: 'ask' } });
    expect(h.state.status).toBe('awaiting_approval');
    // c's deadline (step_timeout, 60 s) passes long before the approver's: it was left running, and
    // the object woke at that past deadline over and over until the decision, a day later.
    h.advance(61_000);
    const returned = h.events.find((e) => e.event_type === 'ToolReturned' && e.payload.step_id === 'c');
    expect(returned?.payload).toMatchObject({ success: false, error: { code: 'timeout' } });
    expect(h.status('c')).toBe('failed');
    const at = h.machine.nextWakeAt();
    expect(at === null || at > h.now()).toBe(true);
    expect(h.state.status).toBe('awaiting_approval');
  });

  it('replays to the same state', () => {
    const h = revised();
    h.ok('c', 'C');
    const r = replay(h.events);
    expect(r.state.status).toBe('awaiting_approval');
    expect(r.state.approval).toEqual(h.state.approval);
  });
});

describe('revision', () => {
  it('asks for a revision when a step fails under on_step_failure replan, and starts nothing meanwhile', () => {
    const h = harness(
      { steps: [echo('a'), echo('b'), echo('c', { dependencies: ['a'] })] },
      { on_step_failure: 'replan', retry_failed_steps: 0, execution_mode: 'parallel' },
    );
    h.ok('a', 'A');
    h.fail('b');
    expect(h.commands.at(-1)).toMatchObject({
      type: 'revise',
      trigger: 'step_failure',
      step_id: 'b',
      strategy: 'replan_remaining',
    });
    expect(h.state.revising).not.toBeNull();
    h.ok('c', 'C'); // an attempt already in flight still finishes
    const before = h.commands.length;
    h.advance(1000);
    expect(h.commands.length).toBe(before);
  });

  it('a new version keeps completed results and re-runs the failed and changed steps', () => {
    const h = harness(
      { steps: [echo('a'), echo('b', { dependencies: ['a'] })] },
      { on_step_failure: 'replan', retry_failed_steps: 0 },
    );
    h.ok('a', 'A');
    h.fail('b');
    const a = h.state.plan!.steps[0]!;
    send(h, {
      type: 'revise',
      plan: nextVersion(h, [a, step('b2', ['a'])]),
      reason: 'use b2',
      kind: 'revision',
    });
    expect(h.state.revision_count).toBe(1);
    expect(h.snapshot().step_results).toEqual({ a: 'A' });
    expect(h.commands.at(-1)).toMatchObject({ type: 'dispatch', step_id: 'b2' });
    h.ok('b2', 'B2');
    expect(h.state.status).toBe('completed');
    const updated = h.events.find((e) => e.event_type === 'PlanUpdated')!;
    expect(updated.payload).toMatchObject({ kind: 'revision', changed_steps: ['b2'] });
  });

  it('a step whose keys come in another order is the same step: not revised, its idempotency key kept', () => {
    // A plan read back from storage lists a step's fields in its schema's order, not as written: an
    // approver's or a model's next version of it is compared by content.
    const h = harness(
      { steps: [echo('a'), echo('b')] },
      { on_step_failure: 'replan', retry_failed_steps: 0 },
    );
    h.fail('a');
    const reordered = (s: Plan['steps'][number]) =>
      Object.fromEntries(Object.entries(s).reverse()) as Plan['steps'][number];
    const [a, b] = h.state.plan!.steps;
    send(h, {
      type: 'revise',
      plan: nextVersion(h, [reordered(a!), reordered(b!), step('c')]),
      reason: 'add c',
      kind: 'revision',
    });
    const updated = h.events.find((e) => e.event_type === 'PlanUpdated')!;
    expect(updated.payload).toMatchObject({ changed_steps: ['c'] });
    expect([h.state.steps.get('a')?.key_version ?? 0, h.state.steps.get('b')?.key_version ?? 0]).toEqual([
      0, 0,
    ]);
    expect(h.state.steps.get('c')?.key_version).toBe(2);
  });

  it('marks a revised step revised and runs it again', () => {
    const h = harness({ steps: [echo('a')] }, { on_step_failure: 'replan', retry_failed_steps: 0 });
    h.fail('a');
    send(h, {
      type: 'revise',
      plan: nextVersion(h, [{ ...step('a'), parameters: { v: 'fixed' } }]),
      reason: 'fix a',
      kind: 'revision',
    });
    expect(h.commands.at(-1)).toMatchObject({ type: 'dispatch', step_id: 'a', attempt: 2 });
  });

  it('fails with Max replans exceeded once max_revisions is used up', () => {
    const h = harness(
      { steps: [echo('a')] },
      { on_step_failure: 'replan', retry_failed_steps: 0, max_revisions: 1 },
    );
    h.fail('a');
    send(h, {
      type: 'revise',
      plan: nextVersion(h, [{ ...step('a'), parameters: { v: 2 } }]),
      reason: 'r1',
      kind: 'revision',
    });
    h.fail('a');
    expect(h.state.status).toBe('failed');
    expect(h.state.error?.message).toContain('Max replans exceeded');
  });

  it('fails the run when the revision cannot be produced', () => {
    const h = harness({ steps: [echo('a')] }, { on_step_failure: 'replan', retry_failed_steps: 0 });
    h.fail('a');
    send(h, {
      type: 'revision_failed',
      error: { code: 'planning_unavailable', message: 'no planner', retryable: false },
      tokens: { prompt: 300, completion: 40 },
    });
    expect(h.state.status).toBe('failed');
    expect(h.state.error?.code).toBe('planning_unavailable');
    // What the failed revision spent is the run's too, live and replayed from the events.
    const spent = { prompt_tokens: 300, completion_tokens: 40, total_tokens: 340 };
    expect(h.state.token_usage).toEqual(spent);
    expect(replay(h.events).state.token_usage).toEqual(spent);
  });

  it('skip_and_continue skips the failed step; abort stops with partial results', () => {
    const skip = harness(
      { steps: [echo('a'), echo('b')] },
      { on_step_failure: 'replan', revision_strategy: 'skip_and_continue', retry_failed_steps: 0 },
    );
    skip.fail('a');
    skip.ok('b', 'B');
    expect(skip.state.status).toBe('completed');
    expect(skip.status('a')).toBe('skipped');
    const abort = harness(
      { steps: [echo('a'), echo('b')] },
      { on_step_failure: 'replan', revision_strategy: 'abort', retry_failed_steps: 0 },
    );
    abort.ok('a', 'A');
    abort.fail('b');
    expect(abort.state.status).toBe('aborted');
    expect(abort.snapshot().step_results).toEqual({ a: 'A' });
  });

  it('ask_user waits for input; the answer retries, skips or stops the failed step', () => {
    const config = {
      on_step_failure: 'replan',
      revision_strategy: 'ask_user',
      retry_failed_steps: 0,
    } as const;
    const retry = harness({ steps: [echo('a'), echo('b')] }, config);
    retry.fail('a');
    expect(retry.state.status).toBe('awaiting_input');
    expect(retry.commands.at(-1)).toMatchObject({ type: 'input_requested', step_id: 'a' });
    send(retry, { type: 'input', input: { hint: 'try again' } });
    expect(retry.state.status).toBe('running');
    expect(retry.commands.at(-1)).toMatchObject({ type: 'dispatch', step_id: 'a', attempt: 2 });
    expect(retry.snapshot().state).toEqual({ hint: 'try again' });

    const skip = harness({ steps: [echo('a'), echo('b')] }, config);
    skip.fail('a');
    send(skip, { type: 'input', input: { action: 'skip' } });
    expect(skip.status('a')).toBe('skipped');
    skip.ok('b', 'B');
    expect(skip.state.status).toBe('completed');

    const stop = harness({ steps: [echo('a'), echo('b')] }, config);
    stop.fail('a');
    send(stop, { type: 'input', input: { action: 'abort' } });
    expect(stop.state.status).toBe('aborted');
  });

  it('ask_user refuses a "replan" answer when nothing can replan, and the run keeps waiting', () => {
    const config = {
      on_step_failure: 'replan',
      revision_strategy: 'ask_user',
      retry_failed_steps: 0,
    } as const;
    const without = harness({ steps: [echo('a'), echo('b')] }, config);
    without.fail('a');
    const before = without.events.length;
    const r = send(without, { type: 'input', input: { action: 'replan' } });
    expect(r.refused).toMatchObject({ code: 'planning_unavailable', details: { reason: 'no_planner' } });
    expect(r.refused?.message).toContain('{"action": "skip"}');
    expect(without.events.length).toBe(before);
    expect(without.state.status).toBe('awaiting_input');
    // The same run then takes an answer it can carry out.
    send(without, { type: 'input', input: { action: 'skip' } });
    expect(without.status('a')).toBe('skipped');

    const withPlanner = harness({ steps: [echo('a'), echo('b')] }, config, {}, { canRevise: true });
    withPlanner.fail('a');
    expect(send(withPlanner, { type: 'input', input: { action: 'replan' } }).refused).toBeUndefined();
    expect(withPlanner.commands.at(-1)).toMatchObject({ type: 'revise' });
  });

  it('a user-requested revision pauses the run until the new version arrives', () => {
    const h = harness({ steps: [echo('a'), echo('b', { dependencies: ['a'] })] });
    send(h, { type: 'request_revision', trigger: 'user_request', reason: 'add a step' });
    expect(h.commands.at(-1)).toMatchObject({ type: 'revise', trigger: 'user_request' });
    h.ok('a', 'A');
    expect(h.status('b')).toBe('pending');
    send(h, {
      type: 'revise',
      plan: nextVersion(h, [step('a'), step('b', ['a']), step('c', ['b'])]),
      reason: 'add c',
      kind: 'revision',
    });
    expect(h.commands.at(-1)).toMatchObject({ type: 'dispatch', step_id: 'b' });
  });

  it('replays revised and approved runs to the live state', () => {
    const h = harness(
      { steps: [echo('a'), echo('b', { dependencies: ['a'] })] },
      { on_step_failure: 'replan', retry_failed_steps: 0, require_plan_approval: true },
    );
    send(h, { type: 'approval', decision: 'approve' });
    h.ok('a', 'A');
    h.fail('b');
    send(h, {
      type: 'revise',
      plan: nextVersion(h, [step('a'), step('b2', ['a'])]),
      reason: 'r',
      kind: 'revision',
    });
    h.ok('b2', 'B2');
    const r = replay(h.events);
    expect(snapshotRun(r.state, r.results)).toEqual(h.snapshot());
  });
});

describe('planning a goal', () => {
  it('starts in planning, asks its owner for a plan, and runs it once delivered', () => {
    const h = harness(null);
    expect(h.state.status).toBe('planning');
    expect(h.commands).toEqual([{ type: 'plan' }]);
    const plan = harness({ steps: [echo('a')] }).state.plan!;
    send(h, { type: 'planned', plan, estimates: null });
    expect(h.state.status).toBe('running');
    expect(h.types()).toEqual(['RunCreated', 'PlanAuthored', 'PlanValidated', 'RunStarted', 'StepScheduled']);
    expect(h.machine.handle({ type: 'planned', plan, estimates: null }).refused?.code).toBe('conflict');
  });

  it('fails the run with the planner’s error when planning fails', () => {
    const h = harness(null);
    send(h, {
      type: 'planning_failed',
      error: { code: 'planning_failed', message: 'every model failed', retryable: false },
    });
    expect(h.state.status).toBe('failed');
    expect(h.state.error?.code).toBe('planning_failed');
  });
});

describe('automatic revision triggers (with a planner)', () => {
  const withPlanner = (planInput: unknown, config: Parameters<typeof harness>[1] = {}) =>
    harness(planInput, config, {}, { canRevise: true });

  it('an output that contradicts expected_output is a reflection and a revision request', () => {
    const h = withPlanner({ steps: [echo('a', { expected_output: 'a list of urls' }), echo('b')] });
    h.ok('a', { note: 'nothing found' });
    const reflection = h.events.find((e) => e.event_type === 'ReflectionAdded');
    expect(reflection?.payload).toMatchObject({ step_id: 'a' });
    expect(h.commands.at(-1)).toMatchObject({ type: 'revise', trigger: 'unexpected_result', step_id: 'a' });
  });

  it('with an LLM judge, the verdict decides: a failing one is a reflection and a revision request', () => {
    const h = harness(
      { steps: [echo('a', { expected_output: 'a haiku' }), echo('b')] },
      {},
      {},
      { canRevise: true, judge: true },
    );
    h.ok('a', 'not a haiku at all');
    expect(h.commands).toContainEqual({ type: 'judge', step_id: 'a', expected: 'a haiku' });
    h.ok('b', 'B');
    expect(h.state.status).toBe('running'); // the verdict is still out
    send(h, { type: 'judged', step_id: 'a', ok: false, reason: 'wrong syllable count' });
    expect(h.commands.at(-1)).toMatchObject({ type: 'revise', trigger: 'unexpected_result', step_id: 'a' });
    const passing = harness(
      { steps: [echo('a', { expected_output: 'a haiku' })] },
      {},
      {},
      { canRevise: true, judge: true },
    );
    passing.ok('a', 'old pond / frog jumps in / splash');
    send(passing, { type: 'judged', step_id: 'a', ok: true, reason: 'five-seven-five' });
    expect(passing.types()).not.toContain('RevisionRequested');
    expect(passing.state.status).toBe('completed');
  });

  it('an output that fits expected_output changes nothing', () => {
    const h = withPlanner({ steps: [echo('a', { expected_output: 'a list of urls' })] });
    h.ok('a', ['https://x']);
    expect(h.types()).not.toContain('ReflectionAdded');
    expect(h.state.status).toBe('completed');
  });

  it('a failure rate over revision_threshold asks for a revision', () => {
    const h = withPlanner(
      { steps: ['a', 'b', 'c', 'd'].map((id) => echo(id)) },
      { continue_on_failure: true, retry_failed_steps: 0, revision_threshold: 0.3 },
    );
    h.ok('a', 1);
    h.ok('b', 1);
    expect(h.types()).not.toContain('RevisionRequested');
    h.fail('c');
    expect(h.commands.at(-1)).toMatchObject({ type: 'revise', trigger: 'failure_rate' });
  });

  it('stops a run over its token budget and asks for a revision near it', () => {
    const near = withPlanner({ steps: [echo('a'), echo('b')] }, { token_budget: 1000 });
    near.machine.handle({
      type: 'result',
      step_id: 'a',
      attempt: 1,
      outcome: { success: true, output: 1, latency_ms: 1, tokens: { prompt: 800, completion: 150 } },
    });
    expect(near.state.revising?.trigger).toBe('token_budget');
    const over = harness({ steps: [echo('a'), echo('b')] }, { token_budget: 1000 });
    over.machine.handle({
      type: 'result',
      step_id: 'a',
      attempt: 1,
      outcome: { success: true, output: 1, latency_ms: 1, tokens: { prompt: 900, completion: 200 } },
    });
    expect(over.state.status).toBe('aborted');
    expect(over.state.error?.code).toBe('token_budget');
  });

  it('new information while running asks for a revision; without a planner it is only recorded', () => {
    const h = withPlanner({ steps: [echo('a'), echo('b', { dependencies: ['a'] })] });
    h.machine.handle({ type: 'input', input: { budget: 'smaller' } });
    expect(h.state.revising?.trigger).toBe('new_information');
    const plain = harness({ steps: [echo('a'), echo('b', { dependencies: ['a'] })] });
    plain.machine.handle({ type: 'input', input: { budget: 'smaller' } });
    expect(plain.state.revising).toBeNull();
    expect(plain.snapshot().state).toEqual({ budget: 'smaller' });
  });
});

describe('streaming execution', () => {
  const step = (id: string, deps: string[] = []) => ({
    id,
    description: id,
    action: 'demo.echo',
    parameters: { id },
    dependencies: deps,
  });
  /** The whole plan the stream's end delivers (`planned`), its steps those that streamed in. */
  const whole = (steps: Plan['steps']): Plan => ({
    id: 'plan_s',
    version: 1,
    goal: 'test',
    strategy: 'flat',
    steps,
    created_at: '2026-01-01T00:00:00.000Z',
  });
  /** A streaming run that revises on a failure, with a planner to revise it. */
  const revisingStream = () =>
    harness(
      null,
      { execution_mode: 'parallel', on_step_failure: 'replan', retry_failed_steps: 0 },
      {},
      { canRevise: true },
    );

  it('runs streamed steps as they arrive and completes only after the stream ends', () => {
    const h = harness(null, { execution_mode: 'parallel' });
    send(h, { type: 'streamed_step', step: step('a'), plan_id: 'plan_s' });
    expect(h.state.status).toBe('running');
    expect(h.commands.at(-1)).toMatchObject({ type: 'dispatch', step_id: 'a' });
    h.ok('a', 'A');
    expect(h.state.status).toBe('running'); // the plan may not be complete yet
    send(h, { type: 'streamed_step', step: step('b', ['a']), plan_id: 'plan_s' });
    expect(h.commands.at(-1)).toMatchObject({ type: 'dispatch', step_id: 'b' });
    h.ok('b', 'B');
    send(h, { type: 'planned', plan: whole([step('a'), step('b', ['a'])]), estimates: null });
    expect(h.state.status).toBe('completed');
    const types = h.types();
    expect(types.indexOf('StepScheduled')).toBeLessThan(types.indexOf('PlanAuthored'));
    const r = replay(h.events);
    expect(snapshotRun(r.state, r.results)).toEqual(h.snapshot());
  });

  it('revises a step that failed mid-stream only once the stream has ended, on top of the whole plan', () => {
    const h = revisingStream();
    send(h, { type: 'streamed_step', step: step('a'), plan_id: 'plan_s' });
    h.ok('a', 'A');
    send(h, { type: 'streamed_step', step: step('bad', ['a']), plan_id: 'plan_s' });
    h.fail('bad', 'broken', false);
    // More of the plan is on its way: a new version now would be replaced by the stream's plan.
    expect(h.types()).not.toContain('RevisionRequested');
    expect(
      h.machine.handle({ type: 'request_revision', trigger: 'user_request', reason: 'now' }),
    ).toMatchObject({
      refused: { code: 'conflict', details: { reason: 'plan_streaming' } },
    });
    send(h, { type: 'streamed_step', step: step('c', ['bad']), plan_id: 'plan_s' });
    send(h, {
      type: 'planned',
      plan: whole([step('a'), step('bad', ['a']), step('c', ['bad'])]),
      estimates: null,
    });
    expect(h.commands.at(-1)).toMatchObject({ type: 'revise', trigger: 'step_failure', step_id: 'bad' });
    send(h, {
      type: 'revise',
      plan: nextVersion(h, [step('a'), step('fixed', ['a'])]),
      reason: 'use fixed',
      kind: 'revision',
    });
    h.ok('fixed', 'F');
    expect(h.state.status).toBe('completed');
    expect(h.state.plan!.version).toBe(2);
    expect(h.snapshot().step_results).toEqual({ a: 'A', fixed: 'F' });
    const types = h.types();
    expect(types.filter((t) => t === 'PlanAuthored')).toHaveLength(1);
    expect(types.indexOf('PlanAuthored')).toBeLessThan(types.indexOf('RevisionRequested'));
    expect(
      h.events.filter((e) => e.event_type === 'StepScheduled' && e.references.step_id === 'bad'),
    ).toHaveLength(1);
    const r = replay(h.events);
    expect(snapshotRun(r.state, r.results)).toEqual(h.snapshot());
  });

  it('takes new information that arrives mid-stream into a revision once the stream has ended', () => {
    const h = revisingStream();
    send(h, { type: 'streamed_step', step: step('a'), plan_id: 'plan_s' });
    h.ok('a', 'A');
    send(h, { type: 'input', input: { city: 'Oslo' } });
    // Noted, not asked for yet: the stream's whole plan would replace a new version.
    expect(h.events.at(-1)).toMatchObject({
      event_type: 'RevisionRequested',
      payload: { trigger: 'new_information', deferred: true },
    });
    expect(h.state.revising).toBeNull();
    expect(h.commands.some((c) => c.type === 'revise')).toBe(false);
    send(h, { type: 'streamed_step', step: step('b', ['a']), plan_id: 'plan_s' });
    send(h, { type: 'planned', plan: whole([step('a'), step('b', ['a'])]), estimates: null });
    // Whole now: the revision is asked for, in the light of the state the input set.
    expect(h.commands.at(-1)).toMatchObject({ type: 'revise', trigger: 'new_information' });
    expect(h.state.deferred_revision).toBeNull();
    send(h, {
      type: 'revise',
      plan: nextVersion(h, [step('a'), step('b2', ['a'])]),
      reason: 'Oslo it is',
      kind: 'revision',
    });
    h.ok('b2', 'B2');
    expect(h.state.status).toBe('completed');
    expect(h.state.plan!.version).toBe(2);
    const requested = h.events.filter((e) => e.event_type === 'RevisionRequested');
    expect(requested.map((e) => e.payload.deferred ?? false)).toEqual([true, false]);
    const r = replay(h.events);
    expect(snapshotRun(r.state, r.results)).toEqual(h.snapshot());
  });

  it('fails the run when the stream breaks after some steps ran', () => {
    const h = harness(null);
    send(h, { type: 'streamed_step', step: step('a'), plan_id: 'plan_s' });
    h.ok('a', 'A');
    send(h, {
      type: 'planning_failed',
      error: { code: 'planning_failed', message: 'stream broke', retryable: false },
    });
    expect(h.state.status).toBe('failed');
    expect(h.snapshot().step_results).toEqual({ a: 'A' });
  });
});

describe('Plan → Act → Reflect without an LLM judge', () => {
  it('records a reflection after each step naming the exit criteria, and runs on', () => {
    const h = harness({ strategy: 'par', success_criteria: 'both echoed', steps: [echo('a'), echo('b')] });
    h.ok('a', 'A');
    h.ok('b', 'B');
    const reflections = h.events.filter((e) => e.event_type === 'ReflectionAdded');
    expect(reflections.map((e) => (e.payload as { step_id: string }).step_id)).toEqual(['a', 'b']);
    expect(JSON.stringify(reflections[0]!.payload)).toContain('both echoed');
    expect(h.state.status).toBe('completed');
  });
});

describe('rollback', () => {
  const slow = { goal: 'roll back', steps: [echo('a'), echo('b')] };
  const rollbackTo = (h: H, to: Plan) =>
    send(h, {
      type: 'revise',
      plan: { ...to, version: h.state.plan!.version + 1 },
      reason: `rollback to version ${to.version}`,
      kind: 'rollback',
    });

  it('to the plan the run already has makes no version', () => {
    const h = harness(slow);
    const v1 = h.state.plan!;
    send(h, {
      type: 'revise',
      plan: nextVersion(h, [v1.steps[0]!, step('c')]),
      reason: 'c',
      kind: 'revision',
    });
    rollbackTo(h, v1);
    rollbackTo(h, v1); // sent twice: the second finds the run already has it
    expect(h.events.filter((e) => e.event_type === 'PlanUpdated')).toHaveLength(2);
    expect(h.state.plan!.version).toBe(3);
  });

  it('to a version that differs in more than its steps makes one (a TEA node’s with:, the exit criteria)', () => {
    const h = harness({
      ...slow,
      success_criteria: 'a and b',
      metadata: { tea: { params: { a: { x: 1 } } } },
    });
    const v1 = h.state.plan!;
    send(h, {
      type: 'revise',
      plan: {
        ...nextVersion(h, v1.steps),
        success_criteria: 'anything',
        metadata: { tea: { params: { a: { x: 2 } } } },
      },
      reason: 'edit the node',
      kind: 'approval_edit',
    });
    rollbackTo(h, v1);
    expect(h.state.plan!.version).toBe(3);
    expect(h.state.plan!.success_criteria).toBe('a and b');
    expect(h.state.plan!.metadata).toMatchObject({ tea: { params: { a: { x: 1 } } } });
  });

  it('to the first version gives back the variables its settings read, after a version without them', () => {
    const h = harness({ ...slow, metadata: { tea: { settings: { m: '${M}' }, env_names: ['M'] } } });
    const v1 = h.state.plan!;
    send(h, {
      type: 'revise',
      plan: { ...nextVersion(h, v1.steps), metadata: {} },
      reason: 'without the TEA metadata',
      kind: 'approval_edit',
    });
    // A later version cannot add a name back by itself…
    send(h, {
      type: 'revise',
      plan: { ...nextVersion(h, v1.steps), metadata: { tea: { env_names: ['M'] } } },
      reason: 'names M again',
      kind: 'revision',
    });
    expect(h.state.plan!.metadata).toMatchObject({ tea: { env_names: [] } });
    // …but the rollback to the creator's version restores its own.
    rollbackTo(h, v1);
    expect(h.state.plan!.metadata).toMatchObject({ tea: { env_names: ['M'] } });
  });
});
