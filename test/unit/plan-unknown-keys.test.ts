import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry, defineTool } from '../../src/executor/registry';
import { validatePlan } from '../../src/plan/validate';
import type { ValidateOptions } from '../../src/plan/validate';

// `llm.call` is the action of a step that names none (seed-001 subtasks, a sub-plan's parent).
const tools = new ToolRegistry(
  ['demo.echo', 'llm.call'].map((name) =>
    defineTool({
      name,
      description: name,
      version: '1',
      input: z.object({ value: z.unknown().optional(), prompt: z.string().optional() }),
      idempotent: true,
      deterministic: true,
      run: () => Promise.resolve(null),
    }),
  ),
);

let n = 0;
const base: ValidateOptions = {
  tools,
  clock: { now: () => new Date('2025-01-01T00:00:00Z') },
  ids: { id: (prefix) => `${prefix}_${++n}`, uuid: () => `uuid-${++n}` },
};

/** A plan a caller wrote: unknown keys refused. */
function submitted(raw: unknown) {
  return validatePlan(raw, { ...base, refuseUnknownKeys: true });
}

const a = { id: 'a', action: 'demo.echo', parameters: { value: 1 }, dependencies: [] };

describe('unknown keys in a submitted plan', () => {
  it('refuses a misspelt dependencies key, naming the step and the key it meant', () => {
    const r = submitted({ steps: [a, { id: 'b', action: 'demo.echo', dependecies: ['a'] }] });
    expect(r.valid).toBe(false);
    expect(r.errors).toEqual([
      {
        code: 'schema',
        message: 'steps[1]: Unknown key "dependecies" (did you mean "dependencies"?)',
        step_id: 'b',
        path: ['steps', 1],
      },
    ]);
  });

  it("drops them in a model's plan (the option off), so the step would not wait", () => {
    const r = validatePlan({ steps: [a, { id: 'b', action: 'demo.echo', dependecies: ['a'] }] }, base);
    expect(r.valid).toBe(true);
    expect(r.plan?.steps[1]?.dependencies).toEqual([]);
  });

  it('lists several unknown keys of one step in one finding, suggesting only where one is near', () => {
    const r = submitted({ steps: [{ ...a, retires: 2, notes: 'x' }] });
    expect(r.errors.map((e) => e.message)).toEqual([
      'steps[0]: Unknown keys "retires" (did you mean "retries"?), "notes"; known keys: id, description, action, parameters, dependencies, expected_output, fallback_action, estimated_tokens, output_path, when, subplan, timeout_ms, retries',
    ]);
  });

  it('checks the plan itself, a fallback object and steps inside sub-plans', () => {
    const r = submitted({
      goal: 'g',
      sucess_criteria: 'done',
      steps: [
        {
          id: 'outer',
          subplan: { steps: [{ id: 'inner', action: 'demo.echo', timeout: 5 }] },
        },
        { ...a, id: 'c', fallback_action: { action: 'demo.echo', parmeters: { value: 2 } } },
      ],
    });
    expect(r.errors).toEqual([
      {
        code: 'schema',
        message: 'plan: Unknown key "sucess_criteria" (did you mean "success_criteria"?)',
        path: [],
      },
      {
        code: 'schema',
        message: 'steps[0].subplan.steps[0]: Unknown key "timeout" (did you mean "timeout_ms"?)',
        step_id: 'outer/inner',
        path: ['steps', 0, 'subplan', 'steps', 0],
      },
      {
        code: 'schema',
        message: 'steps[1].fallback_action: Unknown key "parmeters" (did you mean "parameters"?)',
        step_id: 'c',
        path: ['steps', 1, 'fallback_action'],
      },
    ]);
  });

  it('still accepts seed-001 plans (subtasks with status and result)', () => {
    const r = submitted({
      goal: 'g',
      subtasks: [
        { id: 's1', description: 'first', dependencies: [], status: 'completed', result: 'x' },
        { id: 's2', description: 'second', dependencies: ['s1'], status: 'pending', result: null },
      ],
      metadata: { created_at: 1704393600.0, replan_count: 0 },
    });
    expect(r.errors).toEqual([]);
    expect(r.valid).toBe(true);
  });

  it('accepts every key of a normalised plan, so a plan read back from the API can be sent again', () => {
    const first = submitted({
      goal: 'g',
      strategy: 'hierarchical',
      success_criteria: 'all done',
      estimated_total_tokens: 10,
      metadata: { k: 1 },
      steps: [
        {
          ...a,
          description: 'd',
          expected_output: 'o',
          fallback_action: { action: 'demo.echo', parameters: {} },
          estimated_tokens: 3,
          output_path: 'state.x',
          when: 'true',
          timeout_ms: 1000,
          retries: 1,
        },
        { id: 'sub', dependencies: ['a'], subplan: { steps: [{ id: 'in', action: 'demo.echo' }] } },
      ],
    });
    expect(first.errors).toEqual([]);
    const again = submitted(JSON.parse(JSON.stringify(first.plan)));
    expect(again.errors).toEqual([]);
    expect(again.valid).toBe(true);
  });
});
