/**
 * `approval.revisions: "ask"`: a plan version the planner writes after the first waits for the
 * approver as the first plan did — through the run's object, the queue and the scripted LLM. The step
 * that was running when the revision came finishes meanwhile; nothing of the new version starts
 * until the approver decides.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { api, events, waitForRun, type Json } from '../workers/helpers';
import { describedEcho as echo } from '../fixtures/echo-steps';
import { revisionAwaitingApproval } from './revision-setup';

const slow = { id: 'slow', action: 'demo.sleep', parameters: { ms: 1500, value: 'slept' }, dependencies: [] };
const config = {
  require_plan_approval: true,
  approval: { revisions: 'ask', timeout_s: 600 },
  on_step_failure: 'replan',
  retry_failed_steps: 0,
  execution_mode: 'parallel',
  placement: 'queue',
};

afterEach(() => setLlmFetch(null));

describe('approval of revisions (approval.revisions: "ask")', () => {
  it('holds the revised plan for the approver while the running step finishes, then runs it', async () => {
    const llm = scriptedLlm([JSON.stringify({ steps: [echo('a'), slow, echo('fixed', ['a'])] })]);
    setLlmFetch(llm.fetch);
    // v1 approved, flaky fails, the planner writes v2: the run waits for the approver with slow still running.
    const runId = await revisionAwaitingApproval(config, 'revision-approval', [slow]);
    const waiting = (await api('GET', `/v1/runs/${runId}`)).body;
    expect(waiting.steps.fixed?.status ?? 'pending').toBe('pending');
    const slept = await waitForRun(runId, (r) => (r.steps as Json).slow.status === 'completed');
    expect(slept.status).toBe('awaiting_approval');
    expect(slept.step_results.slow).toBe('slept');
    expect((slept.steps as Json).fixed.attempts).toBe(0);
    const second = await api('POST', `/v1/runs/${runId}/approval`, {
      decision: 'approve',
      comment: 'fixed is fine',
    });
    expect(second.status).toBe(200);
    const done = await waitForRun(runId);
    expect(done.status).toBe('completed');
    expect(done.step_results).toMatchObject({ a: { id: 'a' }, slow: 'slept', fixed: { id: 'fixed' } });
    const log = await events(runId);
    const asked = log.filter((e) => e.event_type === 'ApprovalRequested');
    expect(asked.map((e) => (e.payload as Json).plan_version)).toEqual([1, 2]);
    const granted = log.filter((e) => e.event_type === 'ApprovalGranted');
    expect(granted.map((e) => (e.payload as Json).comment ?? null)).toEqual([null, 'fixed is fine']);
    // The new version's step began only after the second approval.
    const seqOf = (pred: (e: Json) => boolean) => log.find(pred)!.seq as number;
    const fixedBegan = seqOf(
      (e) => e.event_type === 'StepScheduled' && (e.payload as Json).step_id === 'fixed',
    );
    expect(fixedBegan).toBeGreaterThan(granted[1]!.seq as number);
  });

  it('ends the run cancelled when the approver rejects the revision, keeping what ran', async () => {
    setLlmFetch(scriptedLlm([JSON.stringify({ steps: [echo('a'), echo('fixed', ['a'])] })]).fetch);
    const runId = await revisionAwaitingApproval(config, 'revision-reject');
    const r = await api('POST', `/v1/runs/${runId}/approval`, { decision: 'reject', comment: 'no' });
    expect(r.status).toBe(200);
    const done = await waitForRun(runId);
    expect(done.status).toBe('cancelled');
    expect(done.termination_reason).toBe('plan_rejected');
    expect(done.step_results).toMatchObject({ a: { id: 'a' } });
  });
});
