import { describe, expect, it } from 'vitest';
import { replay, snapshotRun } from '../../src/engine/snapshot';
import { echo, harness } from './engine-helpers';
import { scopeFor } from '../../src/engine/decide';
import { resolveValue } from '../../src/plan/references';

const dispatched = (h: ReturnType<typeof harness>) =>
  h.commands
    .filter((c) => c.type === 'dispatch')
    .map((c) => (c.type === 'dispatch' ? `${c.step_id}#${c.attempt}` : ''));

describe('scheduler: execution modes', () => {
  it('runs a sequential plan one step at a time in dependency order and completes with the last output', () => {
    const h = harness({
      steps: [echo('a'), echo('b', { dependencies: ['a'] }), echo('c', { dependencies: ['b'] })],
    });
    expect(dispatched(h)).toEqual(['a#1']);
    expect(h.status('b')).toBe('blocked');
    h.ok('a', 1);
    expect(dispatched(h)).toEqual(['a#1', 'b#1']);
    h.ok('b', 2);
    h.ok('c', 3);
    expect(h.state.status).toBe('completed');
    expect(h.state.final_output).toBe(3);
    expect(h.types().at(-1)).toBe('RunTerminated');
  });

  it('keeps plan order among independent steps in sequential mode', () => {
    const h = harness({ steps: [echo('x'), echo('y'), echo('z')] });
    h.ok('x', 1);
    h.ok('y', 2);
    expect(dispatched(h)).toEqual(['x#1', 'y#1', 'z#1']);
  });

  it('runs at most max_parallel independent steps at once in parallel mode', () => {
    const h = harness(
      { steps: [echo('a'), echo('b'), echo('c'), echo('d')] },
      { execution_mode: 'parallel', max_parallel: 2 },
    );
    expect(dispatched(h)).toEqual(['a#1', 'b#1']);
    h.ok('b', 'B');
    expect(dispatched(h)).toEqual(['a#1', 'b#1', 'c#1']);
    expect(h.state.running.size).toBe(2);
    expect(h.commands.every((c) => c.type !== 'dispatch' || c.mode === 'queue')).toBe(true);
  });

  it('starts adaptive runs one at a time and widens after successes', () => {
    const steps = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => echo(id));
    const h = harness({ steps }, { execution_mode: 'adaptive', max_parallel: 4 });
    expect(h.inFlight().length).toBe(1);
    h.ok('a', 1);
    expect(h.inFlight().length).toBe(2);
    h.ok('b', 1);
    expect(h.inFlight().length).toBe(3);
  });

  it('runs a step only when every dependency completed (diamond)', () => {
    const h = harness(
      {
        steps: [
          echo('a'),
          echo('b', { dependencies: ['a'] }),
          echo('c', { dependencies: ['a'] }),
          echo('d', { dependencies: ['b', 'c'] }),
        ],
      },
      { execution_mode: 'parallel', max_parallel: 5 },
    );
    h.ok('a', 1);
    expect(dispatched(h)).toEqual(['a#1', 'b#1', 'c#1']);
    h.ok('b', 1);
    expect(h.status('d')).toBe('blocked');
    h.ok('c', 1);
    expect(dispatched(h)).toContain('d#1');
  });
});

describe('scheduler: failures', () => {
  it('retries a failed step with exponential backoff from retry_delay', () => {
    const h = harness({ steps: [echo('a')] }, { retry_failed_steps: 2, retry_delay: 1 });
    h.fail('a');
    const retried = h.events.filter((e) => e.event_type === 'StepRetried');
    expect(retried).toHaveLength(1);
    expect(retried[0]!.payload).toMatchObject({ step_id: 'a', attempt: 2, delay_ms: 1000 });
    expect(h.machine.nextWakeAt()).toBe(h.now() + 1000);
    h.advance(999);
    expect(dispatched(h)).toEqual(['a#1']);
    h.advance(1);
    expect(dispatched(h)).toEqual(['a#1', 'a#2']);
    h.fail('a');
    const second = h.events.filter((e) => e.event_type === 'StepRetried')[1];
    expect(second?.payload).toMatchObject({ attempt: 3, delay_ms: 2000 });
  });

  it("waits as long as the tool's service asked (Retry-After) when that is longer than the backoff", () => {
    const h = harness({ steps: [echo('a')] }, { retry_failed_steps: 2, retry_delay: 5 });
    const limited = { code: 'http_status', message: '429', retryable: true };
    h.failWith('a', { ...limited, retry_after_ms: 30_000 });
    const first = h.events.filter((e) => e.event_type === 'StepRetried')[0];
    expect(first?.payload).toMatchObject({ attempt: 2, delay_ms: 30_000 });
    expect(h.machine.nextWakeAt()).toBe(h.now() + 30_000);
    h.advance(29_999);
    expect(dispatched(h)).toEqual(['a#1']);
    h.advance(1);
    expect(dispatched(h)).toEqual(['a#1', 'a#2']);
    // A shorter ask than the backoff (5 s doubled) leaves the backoff.
    h.failWith('a', { ...limited, retry_after_ms: 1000 });
    const second = h.events.filter((e) => e.event_type === 'StepRetried')[1];
    expect(second?.payload).toMatchObject({ attempt: 3, delay_ms: 10_000 });
  });

  it('does not wait for a Retry-After over an hour: the fallback runs, else the step fails saying why', () => {
    const tooLong = {
      code: 'http_status',
      message: 'GET x answered 429',
      retryable: true,
      retry_after_ms: 3_600_001,
    };
    const withFallback = harness(
      { steps: [echo('a', { fallback_action: { action: 'demo.other', parameters: {} } })] },
      { retry_failed_steps: 3 },
    );
    withFallback.failWith('a', tooLong);
    expect(withFallback.types()).not.toContain('StepRetried');
    expect(dispatched(withFallback)).toEqual(['a#1', 'a#2']);
    const scheduled = withFallback.events.filter((e) => e.event_type === 'StepScheduled').at(-1);
    expect(scheduled?.payload).toMatchObject({ step_id: 'a', action: 'demo.other', fallback: true });

    const alone = harness({ steps: [echo('a')] }, { retry_failed_steps: 3 });
    alone.failWith('a', tooLong);
    expect(alone.types()).not.toContain('StepRetried');
    const failed = alone.events.find((e) => e.event_type === 'StepFailed');
    expect(failed?.payload.error.message).toBe(
      "GET x answered 429 — not retried: it asked to be called again in 3601 s (Retry-After), longer than a step's retry waits (3600 s); retry the run once it takes calls again",
    );
    expect(alone.machine.state.status).toBe('failed');
  });

  it('goes to the fallback action after the retries, then fails the run when the fallback fails', () => {
    const h = harness(
      { steps: [echo('a', { fallback_action: { action: 'demo.other', parameters: { x: 1 } } })] },
      { retry_failed_steps: 0 },
    );
    h.fail('a');
    const fb = h.commands.at(-1)!;
    expect(fb).toMatchObject({
      type: 'dispatch',
      step_id: 'a',
      attempt: 2,
      fallback: true,
      action: 'demo.other',
    });
    h.fail('a', 'fallback broke');
    expect(h.status('a')).toBe('failed');
    expect(h.state.status).toBe('failed');
    expect(h.state.error?.message).toContain('fallback broke');
  });

  it('does not retry a non-retryable error', () => {
    const h = harness({ steps: [echo('a')] }, { retry_failed_steps: 3 });
    h.fail('a', 'bad input', false);
    expect(h.types()).not.toContain('StepRetried');
    expect(h.state.status).toBe('failed');
  });

  it('completes through the fallback when it succeeds', () => {
    const h = harness(
      { steps: [echo('a', { fallback_action: 'demo.echo' }), echo('b', { dependencies: ['a'] })] },
      { retry_failed_steps: 0 },
    );
    h.fail('a');
    h.ok('a', 'from fallback');
    h.ok('b', 'done');
    expect(h.state.status).toBe('completed');
    expect(h.snapshot().step_results.a).toBe('from fallback');
  });

  it('aborts on the first failure by default, keeping completed results', () => {
    const h = harness(
      { steps: [echo('a'), echo('b'), echo('c')] },
      { retry_failed_steps: 0, execution_mode: 'parallel' },
    );
    h.begin('c');
    h.ok('a', 'A');
    h.fail('b');
    expect(h.state.status).toBe('failed');
    expect(h.snapshot().step_results).toEqual({ a: 'A' });
    // c was running when the run stopped; its late result is still recorded, nothing new starts.
    h.ok('c', 'C');
    expect(h.snapshot().step_results).toEqual({ a: 'A', c: 'C' });
  });

  it('skips a queued attempt no consumer began when the run ends, instead of leaving it running to its deadline', () => {
    const h = harness(
      { steps: [echo('a'), echo('b'), echo('c')] },
      { retry_failed_steps: 0, execution_mode: 'parallel' },
    );
    h.begin('a');
    h.begin('b');
    h.fail('a');
    expect(h.state.status).toBe('failed');
    // b began (its tool runs on): running until its outcome; c's message no consumer took: skipped now.
    expect([h.status('b'), h.status('c')]).toEqual(['running', 'skipped']);
    expect(h.snapshot().steps.c!.skip_reason).toBe('run_terminated');
    expect([...h.state.running]).toEqual(['b']);
    expect(h.state.timers.has('c')).toBe(false);
    // A retry reopens c.
    const r = h.machine.handle({ type: 'resume' });
    expect(r.events[0]).toMatchObject({ event_type: 'RunResumed' });
    expect((r.events[0]!.payload as { step_ids: string[] }).step_ids).toContain('c');
  });

  it('with continue_on_failure skips only the dependents of a failed step', () => {
    const h = harness(
      { steps: [echo('a'), echo('b', { dependencies: ['a'] }), echo('c')] },
      { retry_failed_steps: 0, continue_on_failure: true },
    );
    h.fail('a');
    expect(h.status('b')).toBe('skipped');
    h.ok('c', 'C');
    expect(h.state.status).toBe('failed');
    expect(h.snapshot().steps.b!.skip_reason).toBe('dependency_failed');
    expect(h.snapshot().step_results).toEqual({ c: 'C' });
  });

  it('with on_step_failure skip marks the failed step skipped and runs dependents that do not need its output', () => {
    const h = harness(
      {
        steps: [
          echo('a'),
          echo('b', { dependencies: ['a'] }),
          { id: 'c', action: 'demo.echo', parameters: { v: '{{ steps.a.output }}' } },
        ],
      },
      { retry_failed_steps: 0, on_step_failure: 'skip' },
    );
    h.fail('a');
    expect(h.status('a')).toBe('skipped');
    h.ok('b', 'B');
    expect(h.status('c')).toBe('skipped');
    expect(h.snapshot().steps.c!.skip_reason).toBe('missing_input');
    expect(h.state.status).toBe('completed');
  });

  it('times out an attempt whose result never comes, then retries it', () => {
    const h = harness({ steps: [echo('a', { timeout_ms: 500 })] }, { retry_failed_steps: 1, retry_delay: 0 });
    h.advance(499);
    expect(h.types()).not.toContain('StepRetried');
    h.advance(1);
    const returned = h.events.find((e) => e.event_type === 'ToolReturned');
    expect(returned?.payload).toMatchObject({ success: false, error: { code: 'timeout' } });
    expect(dispatched(h)).toEqual(['a#1', 'a#2']);
    // The first attempt's late answer is ignored: only the current attempt can complete the step.
    h.ok('a', 'late', 1);
    expect(h.status('a')).toBe('running');
    h.ok('a', 'fresh', 2);
    expect(h.snapshot().step_results.a).toBe('fresh');
  });

  it('records a result at most once per attempt', () => {
    const h = harness({ steps: [echo('a'), echo('b')] });
    h.ok('a', 1);
    const before = h.events.length;
    h.ok('a', 2, 1);
    expect(h.events.length).toBe(before);
    expect(h.snapshot().step_results.a).toBe(1);
  });
});

describe('scheduler: conditions and branches', () => {
  it('skips a step whose when condition is false', () => {
    const h = harness(
      {
        steps: [
          { id: 'a', action: 'demo.echo', parameters: {}, output_path: 'state.weather' },
          { id: 'park', action: 'demo.echo', parameters: {}, when: 'state.weather.sunny == true' },
          { id: 'movie', action: 'demo.echo', parameters: {}, when: '!state.weather.sunny' },
        ],
      },
      { execution_mode: 'parallel' },
    );
    h.ok('a', { sunny: false });
    expect(h.status('park')).toBe('skipped');
    expect(h.status('movie')).toBe('running');
  });

  it('routes a failure to the error branch of output_path and runs only the readers of the written path', () => {
    const h = harness(
      {
        steps: [
          { id: 'pay', action: 'demo.echo', parameters: {}, output_path: 'state.receipt || state.error' },
          { id: 'confirm', action: 'demo.echo', parameters: { receipt: '{{ state.receipt }}' } },
          { id: 'report', action: 'demo.echo', parameters: { error: '{{ state.error }}' } },
        ],
      },
      { retry_failed_steps: 0 },
    );
    h.fail('pay', 'card_declined', false);
    expect(h.status('pay')).toBe('failed');
    expect(h.status('confirm')).toBe('skipped');
    expect(h.status('report')).toBe('running');
    h.ok('report', 'reported');
    expect(h.state.status).toBe('completed');
    expect(h.snapshot().state.error).toMatchObject({ message: 'card_declined' });
  });

  it('writes a success to the first path of output_path', () => {
    const h = harness({
      steps: [
        { id: 'pay', action: 'demo.echo', parameters: {}, output_path: 'state.receipt || state.error' },
        { id: 'confirm', action: 'demo.echo', parameters: { receipt: '{{ state.receipt }}' } },
      ],
    });
    h.ok('pay', { id: 'r1' });
    expect(h.status('confirm')).toBe('running');
    expect(h.snapshot().state).toEqual({ receipt: { id: 'r1' } });
  });
});

describe('scheduler: output_path "state" merges the result into state', () => {
  const merging = {
    steps: [
      { id: 'plan', action: 'demo.echo', parameters: {}, output_path: 'state' },
      { id: 'exec', action: 'demo.echo', parameters: { p: '{{ state.plan }}' }, output_path: 'state' },
      { id: 'use', action: 'demo.echo', parameters: { r: '{{ state.subtask_results.a }}' } },
    ],
  };

  it('writes each key of the result object to state, replacing only those keys', () => {
    const h = harness(merging, {}, {}, {});
    h.ok('plan', { plan: { id: 'p1' }, success: true });
    expect(h.snapshot().state).toEqual({ plan: { id: 'p1' }, success: true });
    expect(h.status('exec')).toBe('running');
    h.ok('exec', { subtask_results: { a: 'A' }, success: false });
    expect(h.snapshot().state).toEqual({ plan: { id: 'p1' }, subtask_results: { a: 'A' }, success: false });
    h.ok('use', 'done');
    expect(h.state.status).toBe('completed');
    // The step's own output is unchanged: the merge is only where it lands in state.
    expect(h.snapshot().step_results.plan).toEqual({ plan: { id: 'p1' }, success: true });
  });

  it('resolves a read of the whole state to every state variable', () => {
    const h = harness({
      steps: [
        echo('a', { output_path: 'state.x' }),
        echo('b', { output_path: 'state' }),
        {
          id: 'c',
          action: 'demo.echo',
          parameters: { all: '{{ state }}', x: '{{ state.x }}' },
          dependencies: ['a', 'b'],
        },
      ],
    });
    h.ok('a', 1);
    h.ok('b', { y: 2, z: { deep: true } });
    const refs = h.state.graph!.refsOf(h.state.graph!.index.get('c')!);
    const resolved = resolveValue(
      { all: '{{ state }}', x: '{{ state.x }}' },
      scopeFor(h.state, h.results, refs),
    );
    expect(resolved).toEqual({ ok: true, value: { all: { x: 1, y: 2, z: { deep: true } }, x: 1 } });
  });

  it('keeps a merged key named __proto__ as data in the state, not as its prototype', () => {
    const h = harness(merging, {}, {}, {});
    h.ok('plan', JSON.parse('{"__proto__": {"polluted": true}, "plan": 1}'));
    const state = h.snapshot().state;
    expect(Object.keys(state)).toEqual(['__proto__', 'plan']);
    expect(Object.getPrototypeOf(state)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(state))).toEqual(
      JSON.parse('{"__proto__": {"polluted": true}, "plan": 1}'),
    );
  });

  it('fails a step whose output is not an object, saying why, without writing state', () => {
    for (const [output, kind] of [
      ['a summary', 'a string'],
      [[1, 2], 'an array'],
      [null, 'null'],
      [3, 'a number'],
    ] as const) {
      const h = harness(merging, { retry_failed_steps: 2 });
      h.ok('plan', output);
      const message = `output_path "state" merges an object's keys into state; step "plan" returned ${kind}`;
      const returned = h.events.find((e) => e.event_type === 'ToolReturned')!;
      expect(returned.payload).toMatchObject({
        success: false,
        error: { code: 'bad_output', message, retryable: false },
      });
      // Not retried (the same call would return the same shape): the step fails, then the run.
      expect(h.status('plan')).toBe('failed');
      expect(h.state.steps.get('plan')!.attempt).toBe(1);
      expect(h.snapshot().steps.plan!.error).toEqual({ code: 'bad_output', message, retryable: false });
      expect(h.snapshot().state).toEqual({});
      expect(h.state.status).toBe('failed');
      expect(h.state.error?.message).toBe(`Step "plan" failed: ${message}`);
    }
  });

  it('routes an unmergeable output to the error path of "state || state.error"', () => {
    const h = harness({
      steps: [
        { id: 'a', action: 'demo.echo', parameters: {}, output_path: 'state || state.error' },
        { id: 'b', action: 'demo.echo', parameters: { e: '{{ state.error.code }}' } },
      ],
    });
    h.ok('a', 'text');
    expect(h.status('a')).toBe('failed');
    expect(h.status('b')).toBe('running');
    expect(h.snapshot().state).toEqual({ error: expect.objectContaining({ code: 'bad_output' }) });
  });

  it('checks a person’s answer to a merging human.input step the same way', () => {
    const h = harness({
      steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'Name?' }, output_path: 'state' }],
    });
    const asked = h.machine.handle({ type: 'await_input', step_id: 'ask', attempt: 1, prompt: 'Name?' });
    h.events.push(...asked.events);
    const answered = h.machine.handle({ type: 'input', input: { name: 'Ada' } });
    h.events.push(...answered.events);
    expect(h.state.status).toBe('completed');
    expect(h.snapshot().state).toEqual({ name: 'Ada' });
    const again = harness({
      steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'Name?' }, output_path: 'state' }],
    });
    again.machine.handle({ type: 'await_input', step_id: 'ask', attempt: 1, prompt: 'Name?' });
    again.machine.handle({ type: 'input', input: 'Ada' });
    expect(again.status('ask')).toBe('failed');
    expect(again.snapshot().steps.ask!.error?.message).toContain('step "ask" returned a string');
  });
});

describe('who answered', () => {
  const asking = () => {
    const h = harness({ steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'Ship?' } }] });
    h.machine.handle({ type: 'await_input', step_id: 'ask', attempt: 1, prompt: 'Ship?' });
    return h;
  };
  const received = (h: ReturnType<typeof asking>, input: Parameters<typeof h.machine.handle>[0]) =>
    h.machine.handle(input).events.find((e) => e.event_type === 'InputReceived')?.payload;

  it('records how the name of who answered was established beside it', () => {
    expect(
      received(asking(), {
        type: 'input',
        input: 'yes',
        step_id: 'ask',
        answered_by: 'ada@example.com',
        answered_by_via: 'access',
      }),
    ).toEqual({ input: 'yes', step_id: 'ask', answered_by: 'ada@example.com', answered_by_via: 'access' });
  });

  it('records no source for an answer without a name, and no source it was not told', () => {
    expect(
      received(asking(), { type: 'input', input: 'yes', step_id: 'ask', answered_by_via: 'token' }),
    ).toEqual({ input: 'yes', step_id: 'ask' });
    expect(received(asking(), { type: 'input', input: 'yes', answered_by: 'Ada' })).toEqual({
      input: 'yes',
      step_id: 'ask',
      answered_by: 'Ada',
    });
  });
});

describe('run control', () => {
  it('cancels a running run and refuses to cancel it twice', () => {
    const h = harness({ steps: [echo('a'), echo('b', { dependencies: ['a'] })] });
    const r = h.machine.handle({ type: 'cancel' });
    expect(r.events.map((e) => e.event_type)).toEqual(['RunTerminated']);
    expect(h.machine.state.status).toBe('cancelled');
    expect(h.machine.handle({ type: 'cancel' }).refused?.code).toBe('run_finished');
  });

  it('retries a failed run from the failed step, keeping completed results and continuing attempt numbers', () => {
    const h = harness(
      { steps: [echo('a'), echo('b', { dependencies: ['a'] }), echo('c', { dependencies: ['b'] })] },
      { retry_failed_steps: 0 },
    );
    h.ok('a', 'A');
    h.fail('b');
    expect(h.state.status).toBe('failed');
    const r = h.machine.handle({ type: 'resume' });
    h.events.push(...r.events);
    h.commands.push(...r.commands);
    expect(h.state.status).toBe('running');
    expect(dispatched(h).at(-1)).toBe('b#2');
    h.ok('b', 'B');
    h.ok('c', 'C');
    expect(h.state.status).toBe('completed');
    expect(dispatched(h).filter((d) => d.startsWith('a#'))).toEqual(['a#1']);
  });

  it('refuses to retry a run that is still running', () => {
    const h = harness({ steps: [echo('a')] });
    expect(h.machine.handle({ type: 'resume' }).refused?.code).toBe('run_not_retryable');
  });

  it('never runs a plan nobody approved: a rejected one, or one cancelled while it awaited approval', () => {
    for (const stop of ['reject', 'cancel'] as const) {
      const h = harness({ steps: [echo('a')] }, { require_plan_approval: true });
      const r =
        stop === 'reject'
          ? h.machine.handle({ type: 'approval', decision: 'reject' })
          : h.machine.handle({ type: 'cancel' });
      expect(r.refused).toBeUndefined();
      expect(h.state.status).toBe('cancelled');
      const retry = h.machine.handle({ type: 'resume' });
      expect(retry.refused?.code).toBe('run_not_retryable');
      expect(retry.refused?.message).toMatch(stop === 'reject' ? /was rejected/ : /awaited approval/);
      expect(retry.events).toEqual([]);
      expect(h.machine.handle({ type: 'resume', step_id: 'a' }).refused?.code).toBe('run_not_retryable');
    }
    // Approved, then cancelled while running: the approved plan may be retried.
    const h = harness({ steps: [echo('a')] }, { require_plan_approval: true });
    h.machine.handle({ type: 'approval', decision: 'approve' });
    h.machine.handle({ type: 'cancel' });
    expect(h.machine.handle({ type: 'resume' }).refused).toBeUndefined();
    expect(h.state.status).toBe('running');
  });

  it('retrying one step of a cancelled run runs the dependencies the cancel cut off first, and every other cut-off step', () => {
    const h = harness(
      { steps: [echo('s'), echo('t', { dependencies: ['s'] }), echo('u')] },
      { retry_failed_steps: 0 },
    );
    h.machine.handle({ type: 'cancel' });
    h.fail('s', 'aborted: the run was cancelled'); // the running attempt's answer, after the cancel
    expect([h.status('s'), h.status('t'), h.status('u')]).toEqual(['skipped', 'skipped', 'skipped']);
    const r = h.machine.handle({ type: 'resume', step_id: 't' });
    h.events.push(...r.events);
    h.commands.push(...r.commands);
    expect(r.events[0]).toMatchObject({ event_type: 'RunResumed', payload: { step_ids: ['s', 't', 'u'] } });
    // t waits for s: it is not dispatched before s completed.
    expect(dispatched(h).filter((d) => d.startsWith('t#'))).toEqual([]);
    h.ok('s', 'S');
    expect(dispatched(h).at(-1)).toBe('t#1');
    h.ok('t', 'T');
    h.ok('u', 'U');
    expect(h.state.status).toBe('completed');
    expect(h.snapshot().step_results).toEqual({ s: 'S', t: 'T', u: 'U' });
  });

  it('records an outcome that comes after a cancel as after_run_ended: kept, not reflected on, and not run again by a retry', () => {
    const h = harness(
      {
        steps: [
          echo('a', { expected_output: 'never what comes back' }),
          echo('b', { dependencies: ['a'] }),
          echo('t', { timeout_ms: 1000 }),
        ],
      },
      { execution_mode: 'parallel' },
    );
    expect(dispatched(h)).toEqual(['a#1', 't#1']);
    h.begin('a');
    h.begin('t');
    h.events.push(...h.machine.handle({ type: 'cancel' }).events);
    const ended = h.state.seq;
    // a's tool ran to the end on its consumer: its outcome is the trace's, marked, and a is completed.
    const late = h.ok('a', 'A');
    expect(late.events.map((e) => e.event_type)).toEqual(['ToolReturned']);
    expect(late.events[0]).toMatchObject({
      seq: ended + 1,
      payload: { success: true, after_run_ended: true },
    });
    expect(h.status('a')).toBe('completed');
    expect(h.snapshot().step_results.a).toBe('A');
    // The ended run stays as it ended: no reflection, no revision, no new final output.
    expect([h.state.status, h.state.final_output, h.state.revising]).toEqual(['cancelled', null, null]);
    // t's attempt never answers: its deadline passes, and the timeout says it came after the end too.
    const timedOut = h.advance(1000);
    expect(
      timedOut.events.map((e) => [e.event_type, (e.payload as { after_run_ended?: true }).after_run_ended]),
    ).toEqual([
      ['ToolReturned', true],
      ['StepSkipped', undefined],
    ]);
    // A retry reopens b and t, never a: its effect happened once and its result is kept.
    const r = h.machine.handle({ type: 'resume' });
    h.commands.push(...r.commands);
    expect(r.events[0]).toMatchObject({ event_type: 'RunResumed', payload: { step_ids: ['b', 't'] } });
    expect(dispatched(h).filter((d) => d.startsWith('a#'))).toEqual(['a#1']);
    // An outcome in a running run is not marked.
    const going = h.ok('t', 'T');
    expect(going.events[0]!.payload).not.toHaveProperty('after_run_ended');
  });

  it('carries a queued attempt nobody began out inline, same attempt, with a new deadline; never one that began', () => {
    const h = harness(
      { steps: [echo('a'), echo('b', { timeout_ms: 600_000 })] },
      { execution_mode: 'parallel', step_timeout: 30 },
    );
    expect(
      h.commands.filter((c) => c.type === 'dispatch').map((c) => c.type === 'dispatch' && c.mode),
    ).toEqual(['queue', 'queue']);
    const error = { code: 'queue_not_consumed', message: 'nobody took it', retryable: true };
    h.advance(20_000);
    const moved = h.machine.handle({
      type: 'redispatch',
      step_id: 'a',
      attempt: 1,
      waited_ms: 20_000,
      error,
    });
    expect(moved.events.map((e) => e.event_type)).toEqual(['StepRedispatched']);
    expect(moved.events[0]!.payload).toEqual({
      step_id: 'a',
      attempt: 1,
      action: 'demo.echo',
      fallback: false,
      dispatch: 'inline',
      deadline_at: h.now() + 30_000,
      waited_ms: 20_000,
      error,
    });
    expect(moved.commands).toEqual([
      { type: 'dispatch', step_id: 'a', attempt: 1, action: 'demo.echo', fallback: false, mode: 'inline' },
    ]);
    h.events.push(...moved.events);
    // The old deadline no longer applies: 20 s on, a is not timed out.
    expect(h.advance(20_000).events).toEqual([]);
    // Once moved, or once begun by a consumer, or not the current attempt: nothing happens.
    h.machine.handle({
      type: 'invoked',
      step_id: 'b',
      attempt: 1,
      tool: 'demo.echo',
      parameters: {},
      idempotency_key: 'run_1:b',
    });
    for (const [step_id, attempt] of [
      ['a', 1],
      ['b', 1],
      ['b', 2],
    ] as const)
      expect(h.machine.handle({ type: 'redispatch', step_id, attempt, waited_ms: 1, error }).events).toEqual(
        [],
      );
    // Replay rebuilds where the attempt runs.
    expect(replay(h.events).state.steps.get('a')!.dispatch).toBe('inline');
  });

  it('refuses to retry a step whose dependency failed, naming the dependency to retry', () => {
    const h = harness(
      { steps: [echo('a'), echo('b', { dependencies: ['a'] }), echo('c', { dependencies: ['b'] })] },
      { retry_failed_steps: 0 },
    );
    h.fail('a', 'boom', false);
    expect(h.state.status).toBe('failed');
    const r = h.machine.handle({ type: 'resume', step_id: 'c' });
    expect(r.refused).toMatchObject({ code: 'step_not_retryable' });
    expect(r.refused?.message).toContain('depends on "a", which failed: retry "a"');
    expect(h.machine.handle({ type: 'resume', step_id: 'a' }).refused).toBeUndefined();
  });

  it('retrying a failed step also runs the branches the failure cut off, so "completed" means all ran', () => {
    const h = harness(
      {
        steps: [echo('a'), echo('b', { dependencies: ['a'] }), echo('x'), echo('y', { dependencies: ['x'] })],
      },
      { retry_failed_steps: 0 },
    );
    h.fail('a', 'boom', false);
    expect(h.state.status).toBe('failed');
    const cutOff = ['x', 'y'].filter((id) => h.status(id) !== 'completed');
    const r = h.machine.handle({ type: 'resume', step_id: 'a' });
    h.events.push(...r.events);
    h.commands.push(...r.commands);
    expect(r.events[0]).toMatchObject({ event_type: 'RunResumed' });
    const reopened = (r.events[0]?.payload as { step_ids: string[] }).step_ids;
    expect(reopened).toEqual(['a', 'b', ...cutOff]);
    // Sequential: each in plan order, one at a time.
    for (const id of ['a', 'b', 'x', 'y']) {
      expect(h.status(id)).toBe('running');
      h.ok(id, id.toUpperCase());
    }
    expect(h.state.status).toBe('completed');
    expect(Object.keys(h.snapshot().step_results).sort()).toEqual(['a', 'b', 'x', 'y']);
  });
});

describe('replay', () => {
  it('folding the event log reproduces the live state exactly, for completed, failed and retried runs', () => {
    const runs = [
      (() => {
        const h = harness({ steps: [echo('a'), echo('b', { dependencies: ['a'] })] });
        h.ok('a', { n: 1 });
        h.ok('b', [1, 2]);
        return h;
      })(),
      (() => {
        const h = harness(
          { steps: [echo('a'), echo('b')] },
          { retry_failed_steps: 1, retry_delay: 0.5, execution_mode: 'parallel' },
        );
        h.fail('a');
        h.ok('b', 'B');
        h.advance(500);
        h.fail('a');
        return h;
      })(),
      (() => {
        const h = harness(
          { steps: [echo('a'), echo('b', { dependencies: ['a'] })] },
          { retry_failed_steps: 0 },
        );
        h.fail('a');
        const r = h.machine.handle({ type: 'resume' });
        h.events.push(...r.events);
        h.ok('a', 'A');
        h.ok('b', 'B');
        return h;
      })(),
      (() => {
        // Root merges: one merged, one refused (not an object) and routed to the error path.
        const h = harness(
          {
            steps: [
              echo('a', { output_path: 'state' }),
              echo('b', { parameters: { p: '{{ state.plan }}' }, output_path: 'state || state.err' }),
              echo('c', { parameters: { e: '{{ state.err }}', p: '{{ state.plan }}' } }),
            ],
          },
          { retry_failed_steps: 0 },
          {},
        );
        h.ok('a', { plan: { id: 'p' }, n: 1 });
        h.ok('b', ['not', 'an', 'object']);
        h.ok('c', 'C');
        expect(h.snapshot().state).toMatchObject({ plan: { id: 'p' }, n: 1, err: { code: 'bad_output' } });
        return h;
      })(),
    ];
    for (const h of runs) {
      const replayed = replay(h.events);
      expect(snapshotRun(replayed.state, replayed.results)).toEqual(h.snapshot());
    }
  });

  it('replays to any point: the state as of an earlier event', () => {
    const h = harness({ steps: [echo('a'), echo('b', { dependencies: ['a'] })] });
    h.ok('a', 'A');
    const seqAfterA = h.events.find((e) => e.event_type === 'ToolReturned')!.seq;
    h.ok('b', 'B');
    const at = replay(h.events, { at: seqAfterA });
    const snap = snapshotRun(at.state, at.results);
    // b's dependency is done, so it is ready (pending) but not yet scheduled.
    expect(snap.step_statuses).toEqual({ a: 'completed', b: 'pending' });
    expect(snap.status).toBe('running');
  });

  it('numbers events without gaps', () => {
    const h = harness({ steps: [echo('a'), echo('b')] });
    h.ok('a', 1);
    h.ok('b', 2);
    expect(h.events.map((e) => e.seq)).toEqual(h.events.map((_, i) => i + 1));
  });
});
