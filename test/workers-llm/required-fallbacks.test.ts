/**
 * `require_fallbacks` (SPEC §2: `missing_fallback` when it is on) holds a plan a model writes for a
 * goal run as it holds a caller's: the model is told so, a plan with a step without a fallback goes
 * back to it for repair, and the run runs only the repaired plan.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { api, waitForRun } from '../workers/helpers';

afterEach(() => setLlmFetch(null));

const step = (extra: Record<string, unknown> = {}) => ({
  id: 'a',
  action: 'demo.echo',
  parameters: { ok: true },
  dependencies: [],
  ...extra,
});

describe('require_fallbacks on a goal run', () => {
  it('sends a model plan without a fallback back for repair, and runs the repaired one', async () => {
    const llm = scriptedLlm([
      JSON.stringify({ steps: [step()] }),
      JSON.stringify({ steps: [step({ fallback_action: 'demo.echo' })] }),
    ]);
    setLlmFetch(llm.fetch);
    // Planned whole (a run awaiting approval does not stream), then looked at before anything runs.
    const r = await api('POST', '/v1/runs', {
      goal: 'echo ok',
      require_fallbacks: true,
      config: { require_plan_approval: true },
    });
    expect(r.status).toBe(201);
    const run = await waitForRun(r.body.run_id, (x) => x.status !== 'planning');
    expect(run.status).toBe('awaiting_approval');
    expect(run.plan.steps[0].fallback_action).toBe('demo.echo');
    expect(llm.sent).toHaveLength(2);
    expect(llm.sent[0]!.body.messages.map((m) => m.content).join('\n')).toContain(
      'Every step must have a "fallback_action"',
    );
    expect(llm.sent[1]!.body.messages.at(-1)!.content).toContain('missing_fallback');
  });

  it('refuses a streamed step without a fallback too', async () => {
    const line = (s: unknown) => `${JSON.stringify({ type: 'step', step: s })}\n`;
    const llm = scriptedLlm([
      { stream: [line(step())] },
      JSON.stringify({ steps: [step({ fallback_action: 'demo.echo' })] }),
    ]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', { goal: 'echo ok', config: { require_fallbacks: true } });
    expect(r.status).toBe(201);
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.plan.steps.every((s: { fallback_action?: unknown }) => s.fallback_action != null)).toBe(true);
  });
});
