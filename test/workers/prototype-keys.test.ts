/**
 * `__proto__` in what a plan names — a state path, a parameter key, a TEA node's kept parameter — is
 * data. Written through as a property lookup, it reached `Object.prototype` of the isolate the run's
 * object shares with every other run (and the Worker): one run's `output_path` could make every later
 * request in that isolate answer 500.
 */
import { describe, expect, it } from 'vitest';
import { api, events, startRun, waitForRun } from './helpers';

/** What every object inherits, checked after a hostile run: untouched. */
function prototypeIntact(): boolean {
  const probe: Record<string, unknown> = {};
  return (
    typeof probe.hasOwnProperty === 'function' &&
    !('polluted' in probe) &&
    Object.getOwnPropertyNames(Object.prototype).every((k) => k !== 'polluted')
  );
}

describe('__proto__ in a plan is data, never the prototype', () => {
  it('an output_path through __proto__ writes the key into the variable, and the next run still starts', async () => {
    const runId = await startRun({
      steps: [
        {
          id: 'p',
          action: 'demo.echo',
          parameters: { v: 1 },
          output_path: 'state.x.__proto__.hasOwnProperty',
        },
        { id: 'q', action: 'demo.echo', parameters: { v: 2 }, output_path: 'state.y.__proto__.polluted' },
      ],
    });
    const run = await waitForRun(runId);
    expect(prototypeIntact()).toBe(true);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(run.state).toEqual(
      JSON.parse(
        '{"x": {"__proto__": {"hasOwnProperty": {"v": 1}}}, "y": {"__proto__": {"polluted": {"v": 2}}}}',
      ),
    );
    const next = await api('POST', '/v1/runs', { plan: { steps: [{ id: 'a', action: 'demo.echo' }] } });
    expect(next.status, JSON.stringify(next.body)).toBe(201);
  });

  it('a later step reads what such a path wrote, by the same path', async () => {
    const runId = await startRun({
      steps: [
        { id: 'p', action: 'demo.echo', parameters: { v: 1 }, output_path: 'state.x.__proto__.k' },
        {
          id: 'r',
          action: 'demo.echo',
          parameters: { got: '{{ state.x.__proto__.k.v }}' },
          dependencies: ['p'],
        },
      ],
    });
    const run = await waitForRun(runId);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(run.step_results.r).toEqual({ got: 1 });
    expect(prototypeIntact()).toBe(true);
  });

  it('a parameter key __proto__ stays a key in the logged call; the tool’s input schema drops it', async () => {
    const params = JSON.parse('{"__proto__": {"isAdmin": true}, "a": "{{ input.a }}"}') as object;
    const runId = await startRun(
      { steps: [{ id: 'e', action: 'demo.echo', parameters: params }] },
      {},
      { a: 1 },
    );
    const run = await waitForRun(runId);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    const invoked = (await events(runId)).find((e) => e.event_type === 'ToolInvoked');
    expect(invoked?.payload.parameters).toEqual(JSON.parse('{"__proto__": {"isAdmin": true}, "a": 1}'));
    // zod parses a record's own keys and leaves `__proto__` out: the tool inherits nothing from it.
    expect(run.step_results.e).toEqual({ a: 1 });
    expect(prototypeIntact()).toBe(true);
  });

  it('a TEA node whose kept parameter path names __proto__ leaves the prototype alone, also when its template fails', async () => {
    for (const template of ['{{ state.v }}', '{{ 1 + }}']) {
      const runId = await startRun({
        steps: [{ id: 'n', action: 'demo.echo', parameters: {} }],
        metadata: {
          tea: {
            params: { n: { v: template } },
            raw: { n: ['__proto__.hasOwnProperty', 'constructor.prototype.toString'] },
          },
        },
      });
      await waitForRun(runId);
      expect(prototypeIntact()).toBe(true);
    }
    const next = await api('POST', '/v1/runs', { plan: { steps: [{ id: 'a', action: 'demo.echo' }] } });
    expect(next.status, JSON.stringify(next.body)).toBe(201);
  });

  it.each([
    ['constructor', { constructor: 1 }],
    ['toString', { toString: 1 }],
    ['__proto__', JSON.parse('{"__proto__": {"max_steps": 1}}') as object],
  ])('refuses a config key %s by its name (400), not a built-in of Object', async (key, config) => {
    const r = await api('POST', '/v1/runs', { plan: { steps: [{ id: 'a', action: 'demo.echo' }] }, config });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect(r.body.error.message).toContain(`Unknown key "${key}"`);
  });
});
