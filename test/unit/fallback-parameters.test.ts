import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from '../../src/executor/registry';
import { tool, validate as validateWith } from './validation-helpers';

const registry = new ToolRegistry([
  tool('web.search', z.object({ query: z.string(), limit: z.number().optional() })),
  tool('web.search_backup', z.object({ query: z.string() })),
  tool('llm.call', z.object({ prompt: z.string() })),
  tool('demo.echo', z.record(z.string(), z.unknown())),
  tool('team.lookup', z.object({ id: z.string() })),
]);

const validate = (raw: unknown) => validateWith(registry, raw);

const step = (
  fallback_action: unknown,
  parameters: Record<string, unknown> = { query: 'edge runtimes' },
) => ({
  id: 'search',
  action: 'web.search',
  parameters,
  fallback_action,
});

describe('a fallback that runs with the step’s parameters', () => {
  it('is one invalid_parameters finding when its tool cannot take them, saying how to give it its own', () => {
    const r = validate({ steps: [step('llm.call')] });
    expect(r.valid).toBe(false);
    expect(r.errors).toEqual([
      {
        code: 'invalid_parameters',
        message:
          'Step "search": fallback_action "llm.call" runs with the step\'s parameters, which it cannot take: parameters.query: unknown parameter "query"; tool llm.call takes prompt; parameters.prompt: is required (a string) (tool llm.call) — give the fallback parameters of its own: "fallback_action": {"action": "llm.call", "parameters": {…}}',
        step_id: 'search',
        path: ['fallback_action'],
      },
    ]);
  });

  it('is checked for {action} without parameters too, at fallback_action.action', () => {
    const r = validate({ steps: [step({ action: 'team.lookup' })] });
    expect(r.errors.map((e) => [e.code, e.path])).toEqual([
      ['invalid_parameters', ['fallback_action', 'action']],
    ]);
    expect(r.errors[0]!.message).toContain(
      'fallback_action.action "team.lookup" runs with the step\'s parameters',
    );
  });

  it('passes when the fallback takes them: a tool with the same keys, an open one, the step’s own tool', () => {
    for (const fb of ['web.search_backup', 'demo.echo', 'web.search', { action: 'demo.echo' }]) {
      expect(validate({ steps: [step(fb)] }).errors).toEqual([]);
    }
  });

  it('is refused for a key only the step’s tool takes (the fallback would drop it)', () => {
    const r = validate({ steps: [step('web.search_backup', { query: 'q', limit: 3 })] });
    expect(r.errors.map((e) => e.message)).toEqual([
      'Step "search": fallback_action "web.search_backup" runs with the step\'s parameters, which it cannot take: parameters.limit: unknown parameter "limit"; tool web.search_backup takes query — give the fallback parameters of its own: "fallback_action": {"action": "web.search_backup", "parameters": {…}}',
    ]);
  });

  it('checks a reference in the step’s parameters for shape only, as for the step', () => {
    const r = validate({
      steps: [
        { id: 'a', action: 'demo.echo' },
        {
          id: 'b',
          action: 'demo.echo',
          parameters: { id: '{{ steps.a.output }}' },
          fallback_action: 'team.lookup',
        },
      ],
    });
    expect(r.errors).toEqual([]);
  });

  it('leaves a fallback with parameters of its own to those, and an unknown fallback tool to unknown_tool', () => {
    const own = validate({ steps: [step({ action: 'llm.call', parameters: { prompt: 'p' } })] });
    expect(own.errors).toEqual([]);
    const unknown = validate({ steps: [step('llm.cal')] });
    expect(unknown.errors.map((e) => [e.code, e.path])).toEqual([['unknown_tool', ['fallback_action']]]);
  });

  it('quotes at most five problems and counts the rest', () => {
    const params: Record<string, unknown> = { query: 'q' };
    for (let k = 0; k < 8; k++) params[`k${k}`] = k;
    const r = validate({
      steps: [{ id: 'x', action: 'demo.echo', parameters: params, fallback_action: 'web.search_backup' }],
    });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.message).toContain(
      'parameters.k4: unknown parameter "k4"; tool web.search_backup takes query; 3 more —',
    );
    expect(r.errors[0]!.message).not.toContain('k5');
  });
});
