import { describe, expect, it } from 'vitest';
import { beginAttempt } from '../../src/engine/begin-attempt';
import { stepEffectKey } from '../../src/engine/idempotency';
import { ToolRegistry } from '../../src/executor/registry';
import type { Plan } from '../../src/plan/model';
import { echo, harness } from './engine-helpers';

type H = ReturnType<typeof harness>;
const tools = new ToolRegistry([]);

/** The key the step's current attempt is begun with. */
function keyOf(h: H, stepId: string): string {
  const rt = h.state.steps.get(stepId)!;
  const r = beginAttempt(h.state, h.results, tools, stepId, rt.attempt, h.now());
  expect(r.begun).not.toBeNull();
  return r.begun!.idempotency_key;
}

describe('idempotency keys (SPEC §4: one per step effect)', () => {
  it('is <run>:<step> for the first attempt, and the same for every retry', () => {
    const h = harness({ steps: [echo('charge')] }, { retry_failed_steps: 2, retry_delay: 1 });
    const first = keyOf(h, 'charge');
    expect(first).toBe('run_1:charge');
    h.fail('charge');
    h.advance(10_000);
    expect(h.state.steps.get('charge')!.attempt).toBe(2);
    expect(keyOf(h, 'charge')).toBe(first);
  });

  it('stays the same when an attempt times out and the step is tried again', () => {
    const h = harness(
      { steps: [echo('charge', { timeout_ms: 100 })] },
      { retry_failed_steps: 1, retry_delay: 0 },
    );
    const first = keyOf(h, 'charge');
    h.advance(150); // the deadline passes: a timeout, then the retry at once (retry_delay 0)
    expect(h.state.steps.get('charge')!.attempt).toBe(2);
    expect(keyOf(h, 'charge')).toBe(first);
  });

  it('gains the plan version when a revision replaces the step, and keeps it for that version', () => {
    const h = harness({ steps: [echo('a')] }, { on_step_failure: 'replan', retry_failed_steps: 0 });
    expect(keyOf(h, 'a')).toBe('run_1:a');
    h.fail('a');
    const plan: Plan = {
      ...h.state.plan!,
      version: 2,
      steps: [{ ...h.state.plan!.steps[0]!, parameters: { v: 'fixed' } }],
    };
    const r = h.machine.handle({ type: 'revise', plan, reason: 'fix a', kind: 'revision' });
    h.commands.push(...r.commands);
    expect(keyOf(h, 'a')).toBe('run_1:a:v2');
  });

  it('an unchanged step keeps its key across a new version', () => {
    const h = harness(
      { steps: [echo('a'), echo('b', { dependencies: ['a'] })] },
      { on_step_failure: 'replan', retry_failed_steps: 0 },
    );
    h.fail('a');
    const [a, b] = h.state.plan!.steps;
    const plan: Plan = { ...h.state.plan!, version: 2, steps: [{ ...a!, parameters: { v: 'x' } }, b!] };
    h.machine.handle({ type: 'revise', plan, reason: 'fix a', kind: 'revision' });
    expect(h.state.steps.get('b')!.key_version).toBe(0);
    expect(stepEffectKey('run_1', 'b', h.state.steps.get('b')!)).toBe('run_1:b');
  });
});
