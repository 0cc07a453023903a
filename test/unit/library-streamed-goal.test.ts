/**
 * A goal planned in process streams as it does in the Worker (test/workers-llm/goal-runs.test.ts): an
 * eager run that needs no approval runs each step as soon as it has streamed in and validated; one
 * that needs approval, or asks for the best of several plans, is planned whole.
 */
import { describe, expect, it } from 'vitest';
import { LocalRunner, pipelineProvider, ToolRegistry } from '../../src/index';
import { randomIds, systemClock } from '../../src/library/defaults';
import { echo, scriptedModelRunner, settle } from './library-helpers';
import { planJson, scriptedLlm } from './planner-helpers';

const echoStep = (id: string, dependencies: string[] = [], parameters: object = { id }) => ({
  id,
  description: `echo ${id}`,
  action: 't.echo',
  parameters,
  dependencies,
});
/** A streamed NDJSON answer (seed 003): one `{"type":"step"}` line per step. */
const ndjson = (steps: unknown[]) => steps.map((step) => `${JSON.stringify({ type: 'step', step })}\n`);

describe('a goal planned in process', () => {
  it('streams: its first step is scheduled before the plan is whole, and the run ends as the Worker’s does', async () => {
    const llm = scriptedLlm([
      { stream: ndjson([echoStep('a'), echoStep('b', ['a'], { from: '{{ steps.a.output.id }}' })]) },
    ]);
    const runner = scriptedModelRunner(llm.fetch);
    runner.start({ goal: 'echo twice', config: { execution_mode: 'sequential' } });
    const end = await runner.done();
    expect(end).toMatchObject({ status: 'completed', step_results: { b: { from: 'a' } } });
    expect(end.token_usage.total_tokens).toBeGreaterThan(0);
    expect(llm.sent[0]!.body.stream).toBe(true);
    const types = runner.events.map((e) => e.event_type);
    expect(types.indexOf('StepStreamed')).toBe(1);
    expect(types.indexOf('StepScheduled')).toBeLessThan(types.indexOf('PlanAuthored'));
  });

  it('is planned whole when the run needs approval first', async () => {
    const llm = scriptedLlm([planJson([echoStep('a')])]);
    const runner = scriptedModelRunner(llm.fetch);
    runner.start({ goal: 'echo once', config: { require_plan_approval: true } });
    for (let i = 0; i < 200 && runner.snapshot().status !== 'awaiting_approval'; i++) await settle(5);
    expect(runner.events.map((e) => e.event_type)).toEqual([
      'RunCreated',
      'PlanAuthored',
      'PlanValidated',
      'ApprovalRequested',
    ]);
    expect(llm.sent[0]!.body.stream).not.toBe(true);
    runner.cancel();
  });

  it('without a model, fails naming the agent’s llm options, not the Worker’s variables', async () => {
    const tools = new ToolRegistry([echo]);
    const runner = new LocalRunner({
      tools,
      planner: pipelineProvider({ tools, clock: systemClock, ids: randomIds }),
    });
    runner.start({ goal: 'something no rule knows' });
    const end = await runner.done();
    expect(end.status).toBe('failed');
    expect(end.error).toMatchObject({
      code: 'planning_unavailable',
      message: expect.stringContaining('no LLM is configured: give the agent `llm: { apiKey }`'),
    });
    expect(end.error?.message).not.toMatch(/OPENAI_API_KEY|OPENAI_BASE_URL|PLANNER_MODEL/);
  });
});
