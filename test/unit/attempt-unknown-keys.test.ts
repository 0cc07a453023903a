import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { beginAttempt } from '../../src/engine/begin-attempt';
import { defineTool, ToolRegistry } from '../../src/executor/registry';
import { harness } from './engine-helpers';

/**
 * Validation refuses a key a closed input does not take; a plan that reaches a run without it (a version
 * stored before the check, a rollback to one) must not have the key dropped as the step runs: the
 * attempt fails with the same words instead of calling the tool.
 */
const search = defineTool({
  name: 'team.search',
  description: 'search',
  version: '1',
  input: z.object({ query: z.string(), options: z.object({ max: z.number() }).optional() }),
  idempotent: true,
  deterministic: true,
  run: () => Promise.resolve(null),
});
const tools = new ToolRegistry([search]);

function firstAttempt(step: Record<string, unknown>) {
  const h = harness({ steps: [{ id: 's', action: 'team.search', ...step }] });
  return beginAttempt(h.state, h.results, tools, 's', 1, h.now());
}

describe('an attempt whose plan gives a key the tool does not take', () => {
  it('fails as invalid_parameters, not retryable, naming the key, without calling the tool', () => {
    const r = firstAttempt({ parameters: { query: 'q', options: { maxx: 3 } } });
    expect(r.begun).toBeNull();
    expect(r.inputs).toEqual([
      {
        type: 'result',
        step_id: 's',
        attempt: 1,
        outcome: {
          success: false,
          error: {
            code: 'invalid_parameters',
            message:
              'Invalid parameters for team.search: parameters.options.maxx: unknown key "maxx" (did you mean "max"?); parameters.options of tool team.search takes max',
            retryable: false,
          },
          latency_ms: 0,
        },
      },
    ]);
  });

  it('is checked for a fallback running the step’s parameters with its own tool', () => {
    const h = harness(
      {
        steps: [
          {
            id: 's',
            action: 'demo.echo',
            parameters: { query: 'q', limit: 3 },
            fallback_action: 'team.search',
          },
        ],
      },
      { retry_failed_steps: 0 },
    );
    h.fail('s', 'boom', false);
    expect(h.state.steps.get('s')).toMatchObject({ attempt: 2, on_fallback: true });
    const r = beginAttempt(h.state, h.results, tools, 's', 2, h.now());
    expect(r.begun).toBeNull();
    expect(r.inputs[0]).toMatchObject({
      outcome: {
        error: { code: 'invalid_parameters', message: expect.stringContaining('unknown parameter "limit"') },
      },
    });
  });

  it('begins as before when every key is the tool’s; a referenced value’s own keys are left to the tool', () => {
    expect(firstAttempt({ parameters: { query: 'q', options: { max: 3 } } }).begun).toMatchObject({
      action: 'team.search',
      parameters: { query: 'q', options: { max: 3 } },
    });
    const h = harness({
      steps: [
        { id: 'a', action: 'demo.echo' },
        { id: 's', action: 'team.search', parameters: { query: 'q', options: '{{ steps.a.output }}' } },
      ],
    });
    h.ok('a', { max: 3, source: 'a' });
    const r = beginAttempt(h.state, h.results, tools, 's', 1, h.now());
    expect(r.begun?.parameters).toEqual({ query: 'q', options: { max: 3, source: 'a' } });
  });
});
