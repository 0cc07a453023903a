import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry, defineTool } from '../../src/executor/registry';
import type { AnyTool } from '../../src/executor/registry';
import { validatePlan } from '../../src/plan/validate';
import type { Finding, ValidateOptions } from '../../src/plan/validate';

function tool(name: string, input: z.ZodType, output?: z.ZodType, extra: Partial<AnyTool> = {}): AnyTool {
  return defineTool({
    name,
    description: name,
    version: '1',
    input,
    ...(output ? { output } : {}),
    idempotent: true,
    deterministic: true,
    run: () => Promise.resolve(null),
    ...extra,
  });
}

const tools = new ToolRegistry([
  tool(
    'web.search',
    z.object({ query: z.string(), limit: z.number().int().optional() }),
    z.object({ items: z.array(z.object({ url: z.string(), title: z.string() })), total: z.number() }),
    { estimated_tokens: 100, estimated_latency_ms: 300 },
  ),
  tool(
    'http.get',
    z.object({ url: z.url(), retries: z.number().optional() }),
    z.object({ status: z.number(), body: z.string() }),
  ),
  tool('llm.call', z.object({ prompt: z.string() }), undefined, { estimated_tokens: 500 }),
  tool('demo.sleep', z.object({ ms: z.number(), value: z.unknown().optional() })),
  tool(
    'demo.flag',
    z.object({ on: z.boolean() }),
    z.object({ ok: z.boolean(), note: z.string().nullable() }),
  ),
]);

let n = 0;
const base: ValidateOptions = {
  tools,
  clock: { now: () => new Date('2025-01-01T00:00:00Z') },
  ids: { id: (prefix) => `${prefix}_${++n}`, uuid: () => `uuid-${++n}` },
};

function validate(raw: unknown, config: ValidateOptions['config'] = {}) {
  return validatePlan(raw, { ...base, config: { max_steps: 50, ...config } });
}

function codes(errors: Finding[]): string[] {
  return errors.map((e) => e.code);
}

const search = {
  id: 'search',
  action: 'web.search',
  parameters: { query: 'edge runtimes' },
  dependencies: [],
};

describe('validatePlan', () => {
  it('accepts a well-formed plan, fills in defaults and reports estimates', () => {
    const r = validate({
      goal: 'research',
      steps: [
        search,
        { id: 'fetch', action: 'http.get', parameters: { url: '{{ steps.search.output.items[0].url }}' } },
      ],
    });
    expect(r.errors).toEqual([]);
    expect(r.valid).toBe(true);
    expect(r.plan).toMatchObject({
      goal: 'research',
      strategy: 'manual',
      version: 1,
      created_at: '2025-01-01T00:00:00.000Z',
      steps: [
        { id: 'search', description: 'web.search' },
        { id: 'fetch', dependencies: [] },
      ],
    });
    expect(r.plan?.id).toMatch(/^plan_/);
    expect(r.estimates).toMatchObject({ step_count: 2, critical_path: { steps: ['search', 'fetch'] } });
  });

  it('reports a malformed plan as schema findings naming the zod path and the step', () => {
    const r = validate({
      steps: [
        { id: 'ok', action: 'llm.call' },
        { id: 'bad id!', action: 'llm.call' },
        { id: 'x', retries: -1 },
      ],
    });
    expect(r.valid).toBe(false);
    expect(r.plan).toBeNull();
    expect(codes(r.errors)).toEqual(['schema', 'schema']);
    expect(r.errors[0]).toMatchObject({ step_id: 'bad id!', path: ['steps', 1, 'id'] });
    expect(r.errors[0]?.message).toMatch(/^steps\[1\]\.id: /);
    expect(r.errors[1]).toMatchObject({ step_id: 'x', path: ['steps', 2, 'retries'] });
    expect(validate('not a plan').errors[0]).toMatchObject({ code: 'schema' });
  });

  it('refuses the step id __proto__ (a key of every view of the run), and takes other built-in names', () => {
    // As a key of step_results it set the prototype: the run was stored and then unreadable (a 500).
    const r = validate({ steps: [{ id: '__proto__', action: 'llm.call', parameters: { prompt: 'p' } }] });
    expect(r.valid).toBe(false);
    expect(r.errors[0]).toMatchObject({ code: 'schema', step_id: '__proto__', path: ['steps', 0, 'id'] });
    expect(r.errors[0]?.message).toContain('not "__proto__"');
    const ok = validate({
      steps: ['constructor', 'prototype', 'toString', '__proto'].map((id) => ({
        id,
        action: 'llm.call',
        parameters: { prompt: 'p' },
        dependencies: [],
      })),
    });
    expect(ok.errors).toEqual([]);
  });

  it('reports a duplicated step id', () => {
    const r = validate({ steps: [search, { ...search }] });
    expect(r.errors).toEqual([
      { code: 'duplicate_step', message: 'Duplicate step id: search', step_id: 'search', path: ['id'] },
    ]);
  });

  it('reports an action or fallback naming no registered tool', () => {
    const r = validate({
      steps: [
        { id: 'a', action: 'web.serch', parameters: {} },
        { id: 'b', action: 'llm.call', parameters: { prompt: 'hi' }, fallback_action: 'llm.cal' },
        { id: 'c', action: 'llm.call', parameters: { prompt: 'hi' }, fallback_action: { action: 'nope' } },
      ],
    });
    expect(r.errors.map((e) => [e.code, e.step_id, e.path])).toEqual([
      ['unknown_tool', 'a', ['action']],
      ['unknown_tool', 'b', ['fallback_action']],
      ['unknown_tool', 'c', ['fallback_action', 'action']],
    ]);
    expect(r.errors[0]?.message).toContain('unknown tool "web.serch"');
    expect(r.errors[0]?.message).toContain('web.search');
  });

  it('names the registered tool a misspelt action likely meant, with or without the list', () => {
    const r = validate({ steps: [{ id: 'a', action: 'web.serch', parameters: {} }] });
    expect(r.errors[0]?.message).toMatch(
      /^Step "a": unknown tool "web\.serch" \(did you mean "web\.search"\? registered: .*\bweb\.search\b.*\)$/,
    );
    const far = validate({ steps: [{ id: 'a', action: 'files.read', parameters: {} }] });
    expect(far.errors[0]?.message).toMatch(/^Step "a": unknown tool "files\.read" \(registered: /);
    // Past 20 tools the list is left out; the likely one is still named.
    const many = new ToolRegistry([
      ...Array.from({ length: 24 }, (_, i) => tool(`team.tool${i}`, z.object({}))),
      tool('mcp.weather.forecast', z.object({ city: z.string() })),
    ]);
    const typo = validatePlan(
      { goal: 'g', steps: [{ id: 'w', action: 'mcp.weather.forcast', parameters: {} }] },
      { ...base, tools: many },
    );
    expect(typo.errors.map((e) => e.message)).toEqual([
      'Step "w": unknown tool "mcp.weather.forcast" (did you mean "mcp.weather.forecast"?)',
    ]);
    const none = validatePlan(
      { goal: 'g', steps: [{ id: 'w', action: 'files.read', parameters: {} }] },
      { ...base, tools: many },
    );
    expect(none.errors.map((e) => e.message)).toEqual(['Step "w": unknown tool "files.read"']);
  });

  it('checks parameters against the tool input schema, with the parameter path', () => {
    const r = validate({ steps: [{ id: 'a', action: 'web.search', parameters: { query: 3, limit: 1.5 } }] });
    expect(codes(r.errors)).toEqual(['invalid_parameters', 'invalid_parameters']);
    expect(r.errors.map((e) => e.path)).toEqual([
      ['parameters', 'query'],
      ['parameters', 'limit'],
    ]);
    expect(r.errors[0]?.message).toContain('(tool web.search)');
  });

  it('checks references in parameters for shape only', () => {
    const r = validate({
      steps: [
        search,
        // A whole-string reference stands for a value of any shape the producer allows.
        { id: 'wait', action: 'demo.sleep', parameters: { ms: '{{ input.delay }}' } },
        // An interpolated string is a string: fine where a URL is expected, wrong where a number is.
        {
          id: 'get',
          action: 'http.get',
          parameters: { url: 'https://{{ input.host }}/x', retries: 'n={{ input.n }}' },
        },
      ],
    });
    expect(r.errors.map((e) => [e.code, e.step_id, e.path])).toEqual([
      ['invalid_parameters', 'get', ['parameters', 'retries']],
    ]);
  });

  it('checks fallback parameters against the fallback tool', () => {
    const r = validate({
      steps: [{ ...search, fallback_action: { action: 'llm.call', parameters: { prompt: 42 } } }],
    });
    expect(r.errors.map((e) => [e.code, e.path])).toEqual([
      ['invalid_parameters', ['fallback_action', 'parameters', 'prompt']],
    ]);
  });

  it('reports a dependency or reference to a missing step as "Unknown subtask"', () => {
    const r = validate({
      steps: [
        { ...search, dependencies: ['ghost'] },
        { id: 'b', action: 'llm.call', parameters: { prompt: '{{ steps.phantom.output }}' } },
      ],
    });
    expect(r.errors).toEqual([
      {
        code: 'unknown_dependency',
        message: 'Unknown subtask: ghost',
        step_id: 'search',
        path: ['dependencies', 0],
      },
      {
        code: 'unknown_dependency',
        message: 'Unknown subtask: phantom',
        step_id: 'b',
        path: ['parameters', 'prompt'],
      },
    ]);
  });

  it('reports a cycle naming the whole cycle', () => {
    const step = (id: string, dep: string) => ({
      id,
      action: 'llm.call',
      parameters: { prompt: id },
      dependencies: [dep],
    });
    const r = validate({ steps: [step('a', 'b'), step('b', 'c'), step('c', 'a')] });
    expect(r.errors).toEqual([{ code: 'cycle', message: 'Cycle detected: a -> b -> c -> a', step_id: 'a' }]);
    expect(r.estimates).toBeNull();
  });

  it('reports more steps than max_steps', () => {
    const r = validate(
      { steps: [search, { ...search, id: 's2' }, { ...search, id: 's3' }] },
      { max_steps: 2 },
    );
    expect(r.errors).toEqual([
      {
        code: 'too_many_steps',
        message:
          "The plan has 3 steps; the limit (max_steps) is 2 (a run's config.max_steps may be up to 100000)",
      },
    ]);
  });

  it('allows 20 steps by default', () => {
    const steps = Array.from({ length: 21 }, (_, i) => ({ ...search, id: `s${i}` }));
    expect(codes(validatePlan({ steps }, base).errors)).toEqual(['too_many_steps']);
    expect(validatePlan({ steps: steps.slice(1) }, base).valid).toBe(true);
  });

  it('reports sub-plans nested deeper than max_depth, naming the step by its path', () => {
    const leaf = { steps: [search] };
    const plan = {
      steps: [
        {
          id: 'outer',
          action: 'llm.call',
          parameters: { prompt: 'p' },
          subplan: {
            steps: [{ id: 'inner', action: 'llm.call', parameters: { prompt: 'p' }, subplan: leaf }],
          },
        },
      ],
    };
    expect(validate(plan, { max_depth: 2 }).valid).toBe(true);
    const r = validate(plan, { max_depth: 1 });
    expect(r.errors).toEqual([
      {
        code: 'too_deep',
        message: 'Step "outer/inner" has a sub-plan nested 2 deep; the limit (max_depth) is 1',
        step_id: 'outer/inner',
        path: ['subplan'],
      },
    ]);
  });

  it('does not check the parameters of a step with a sub-plan: the sub-plan is what it runs', () => {
    const r = validate({ steps: [{ id: 'p', parameters: {}, subplan: { steps: [search] } }] });
    expect(r.errors).toEqual([]);
    expect(r.valid).toBe(true);
  });

  it('validates sub-plans with their own namespace and reports findings under the parent', () => {
    const r = validate({
      steps: [
        {
          id: 'p',
          action: 'llm.call',
          parameters: { prompt: 'x' },
          subplan: {
            steps: [
              { id: 'c', action: 'nope' },
              { id: 'd', action: 'llm.call', parameters: { prompt: 'y' }, dependencies: ['c', 'zz'] },
            ],
          },
        },
      ],
    });
    expect(r.errors.map((e) => [e.code, e.step_id])).toEqual([
      ['unknown_tool', 'p/c'],
      ['unknown_dependency', 'p/d'],
    ]);
  });

  it('reports estimated tokens over the token budget', () => {
    const r = validate(
      {
        steps: [
          search,
          { id: 'sum', action: 'llm.call', parameters: { prompt: 'x' }, estimated_tokens: 2000 },
        ],
      },
      { token_budget: 2000 },
    );
    expect(r.errors).toEqual([
      { code: 'token_budget', message: 'Estimated tokens 2100 exceed the token budget of 2000' },
    ]);
  });

  it('requires declared dependencies only when require_dependencies is on', () => {
    const plan = { steps: [{ id: 'a', action: 'llm.call', parameters: { prompt: 'x' } }, search] };
    expect(validate(plan).valid).toBe(true);
    const r = validate(plan, { require_dependencies: true });
    expect(r.errors.map((e) => [e.code, e.step_id])).toEqual([['missing_dependencies', 'a']]);
  });

  it('requires fallbacks only when require_fallbacks is on', () => {
    // llm.call cannot take the search's {query}: the fallback gets parameters of its own.
    const fallback_action = {
      action: 'llm.call',
      parameters: { prompt: 'What is known about edge runtimes?' },
    };
    const plan = { steps: [search, { ...search, id: 'b', fallback_action }] };
    expect(validate(plan).valid).toBe(true);
    expect(validate(plan, { require_fallbacks: true }).errors).toEqual([
      {
        code: 'missing_fallback',
        message: 'Step "search" has no fallback_action',
        step_id: 'search',
        path: ['fallback_action'],
      },
    ]);
  });

  it('reports references, output paths and conditions that do not parse', () => {
    const r = validate({
      steps: [
        {
          id: 'a',
          action: 'llm.call',
          parameters: { prompt: 'see {{ steps.x.outpt[0] }}' },
          output_path: 'input.result',
          when: 'state.ready &&',
        },
      ],
    });
    expect(r.errors.map((e) => [e.code, e.path])).toEqual([
      ['bad_reference', ['parameters', 'prompt']],
      ['bad_reference', ['when']],
      ['bad_reference', ['output_path']],
    ]);
  });

  it('hints at .output when a step reference reads a field directly', () => {
    const r = validate({
      steps: [search, { id: 'b', action: 'llm.call', parameters: { prompt: '{{ steps.search.items }}' } }],
    });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ code: 'bad_reference', step_id: 'b' });
    expect(r.errors[0]?.message).toContain('{{ steps.search.output.items }}');
  });

  it('reports parameters nested deeper than the stack allows as a schema finding, not a crash', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const r = validate({ steps: [{ id: 'a', action: 'demo.sleep', parameters: { ms: 1, value: deep } }] });
    expect(r.valid).toBe(false);
    expect(r.errors[0]).toMatchObject({ code: 'schema' });
    expect(r.errors[0]?.message).toContain('nested too deeply');
  });

  it('reports every finding at once', () => {
    const r = validate({
      steps: [
        search,
        search,
        { id: 'x', action: 'nope', dependencies: ['ghost'] },
        {
          id: 'y',
          action: 'web.search',
          parameters: { query: '{{ steps.search.output.itemz }}' },
          dependencies: ['z'],
        },
        { id: 'z', action: 'llm.call', parameters: { prompt: 'x' }, dependencies: ['y'] },
      ],
    });
    expect(new Set(codes(r.errors))).toEqual(
      new Set(['duplicate_step', 'unknown_tool', 'unknown_dependency', 'bad_reference', 'cycle']),
    );
  });
});

describe('typed references', () => {
  const fetch = (url: string) => ({ id: 'fetch', action: 'http.get', parameters: { url } });

  it('accepts a path that exists in the producing tool output schema', () => {
    expect(validate({ steps: [search, fetch('{{ steps.search.output.items[0].url }}')] }).valid).toBe(true);
  });

  it('rejects a path the output schema does not have, listing what it has', () => {
    const r = validate({ steps: [search, fetch('{{ steps.search.output.itemz[0].url }}')] });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({
      code: 'bad_reference',
      step_id: 'fetch',
      path: ['parameters', 'url'],
    });
    expect(r.errors[0]?.message).toContain('"itemz"');
    expect(r.errors[0]?.message).toContain('it has items, total');
    const deep = validate({ steps: [search, fetch('{{ steps.search.output.items[0].link }}')] });
    expect(deep.errors[0]?.message).toContain('"items[0].link"');
    const intoString = validate({ steps: [search, fetch('{{ steps.search.output.total.value }}')] });
    expect(codes(intoString.errors)).toEqual(['bad_reference']);
  });

  it('rejects a whole-string reference whose type the parameter does not accept', () => {
    const r = validate({
      steps: [
        search,
        { id: 'q', action: 'web.search', parameters: { query: '{{ steps.search.output.total }}' } },
      ],
    });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]?.message).toContain(
      'is a number but parameters.query of tool web.search expects a string',
    );
    const obj = validate({
      steps: [
        search,
        { id: 'q', action: 'llm.call', parameters: { prompt: '{{ steps.search.output.items }}' } },
      ],
    });
    expect(obj.errors[0]?.message).toContain('is an array but');
  });

  it("holds a whole {{ input.… }} reference to the run's input when it is known, and only then", () => {
    const plan = {
      steps: [
        {
          id: 'q',
          action: 'web.search',
          parameters: { query: '{{ input.version }}', limit: '{{ input.n }}' },
        },
        { id: 's', action: 'demo.sleep', parameters: { ms: '{{ input.wait.ms }}' } },
        { id: 'p', action: 'llm.call', parameters: { prompt: 'notes for {{ input.version }}' } },
      ],
    };
    const withInput = (value: unknown) => validatePlan(plan, { ...base, runInput: { value } });
    // `--input version=2.0` reads as JSON: a number, which query (a string) cannot take.
    const wrong = withInput({ version: 2, n: 'ten', wait: { ms: '5' } });
    expect(wrong.errors.map((e) => [e.code, e.step_id, e.path, e.message])).toEqual([
      [
        'bad_reference',
        'q',
        ['parameters', 'query'],
        'Step "q": {{ input.version }} is a number but parameters.query of tool web.search expects a string ' +
          "(as the run's input gives it)",
      ],
      [
        'bad_reference',
        'q',
        ['parameters', 'limit'],
        'Step "q": {{ input.n }} is a string but parameters.limit of tool web.search expects a number ' +
          "(as the run's input gives it)",
      ],
      [
        'bad_reference',
        's',
        ['parameters', 'ms'],
        'Step "s": {{ input.wait.ms }} is a string but parameters.ms of tool demo.sleep expects a number ' +
          "(as the run's input gives it)",
      ],
    ]);
    expect(withInput({ version: '2.0', n: 10, wait: { ms: 5 } }).errors).toEqual([]);
    // What the input lacks never comes (the input does not change): the step could only be skipped.
    expect(withInput({ version: '2.0' }).errors.map((e) => [e.code, e.step_id, e.path, e.message])).toEqual([
      [
        'bad_reference',
        'q',
        ['parameters', 'limit'],
        'Step "q": {{ input.n }} reads input.n, which the run\'s input does not have (it has version): ' +
          "give it in the run's input (edgeplan run … --input n=…), or the step could never run",
      ],
      [
        'bad_reference',
        's',
        ['parameters', 'ms'],
        'Step "s": {{ input.wait.ms }} reads input.wait.ms, which the run\'s input does not have (it has version): ' +
          "give it in the run's input, or the step could never run",
      ],
    ]);
    // A reference inside text is held to it too: its step could not run either.
    expect(withInput({ n: 1, wait: { ms: 1 } }).errors.map((e) => [e.step_id, e.path])).toEqual([
      ['q', ['parameters', 'query']],
      ['p', ['parameters', 'prompt']],
    ]);
    // Without the run's input (a plan checked on its own) nothing is said about it.
    expect(validatePlan(plan, base).errors).toEqual([]);
  });

  it('holds a value the run’s input gives a parameter to its tool’s schema, naming the reference', () => {
    const plan = {
      steps: [
        { id: 'q', action: 'web.search', parameters: { query: 'x', limit: '{{ input.n }}' } },
        { id: 'g', action: 'http.get', parameters: { url: '{{ input.site.url }}' } },
        { id: 't', action: 'http.get', parameters: { url: 'https://example.com/{{ input.path }}' } },
      ],
    };
    const withInput = (value: unknown) => validatePlan(plan, { ...base, runInput: { value } });
    // The right kinds, values the tools refuse: said now, not when the steps run.
    const wrong = withInput({ n: 2.5, site: { url: 'not a url' }, path: 'a' });
    expect(wrong.errors.map((e) => [e.code, e.step_id, e.path])).toEqual([
      ['invalid_parameters', 'q', ['parameters', 'limit']],
      ['invalid_parameters', 'g', ['parameters', 'url']],
    ]);
    expect(wrong.errors[0]?.message).toMatch(
      /^Step "q": parameters\.limit: .+ \(tool web\.search\) — \{\{ input\.n \}\} reads it from the run's input$/,
    );
    expect(wrong.errors[1]?.message).toMatch(/\{\{ input\.site\.url \}\} reads it from the run's input$/);
    expect(withInput({ n: 3, site: { url: 'https://example.com' }, path: 'a' }).errors).toEqual([]);
    // A value of the wrong type is said once, by the typed-reference check.
    expect(
      withInput({ n: 'ten', site: { url: 'https://example.com' }, path: 'a' }).errors.map((e) => e.code),
    ).toEqual(['bad_reference']);
    // Without the run's input the values are not known: nothing is said.
    expect(validatePlan(plan, base).errors).toEqual([]);
  });

  it('takes the keys of an object the run’s input gives as data: a z.object strips them when the step runs', () => {
    const notify = new ToolRegistry([
      tool('team.notify', z.object({ alert: z.object({ id: z.string() }), note: z.string().optional() })),
      tool('team.strict', z.object({ alert: z.strictObject({ id: z.string() }) })),
    ]);
    const plan = (action: string) => ({
      steps: [{ id: 'n', action, parameters: { alert: '{{ input.alert }}' } }],
    });
    const alert = { id: 'A-1', severity: 'high', source: 'pager' };
    const check = (action: string, value: unknown) =>
      validatePlan(plan(action), { ...base, tools: notify, runInput: { value } }).errors;
    expect(check('team.notify', { alert })).toEqual([]);
    // What the step would refuse is still said: a strict object's extra keys, a missing id.
    expect(check('team.strict', { alert }).map((e) => e.path)).toEqual([
      ['parameters', 'alert', 'severity'],
      ['parameters', 'alert', 'source'],
    ]);
    expect(check('team.notify', { alert: { severity: 'high' } }).map((e) => e.path)).toEqual([
      ['parameters', 'alert', 'id'],
    ]);
    // A misspelt key the author wrote beside it is named as before.
    const misspelt = {
      steps: [
        { id: 'n', action: 'team.notify', parameters: { alert: '{{ input.alert }}', note: 'x', noet: 'y' } },
      ],
    };
    expect(
      validatePlan(misspelt, { ...base, tools: notify, runInput: { value: { alert } } }).errors.map(
        (e) => e.path,
      ),
    ).toEqual([['parameters', 'noet']]);
  });

  it('accepts compatible and nullable types, and does not type-check interpolation', () => {
    const r = validate({
      steps: [
        search,
        { id: 'f', action: 'demo.flag', parameters: { on: true } },
        {
          id: 'n',
          action: 'web.search',
          parameters: { query: '{{ steps.f.output.note }}', limit: '{{ steps.search.output.total }}' },
        },
        { id: 't', action: 'web.search', parameters: { query: 'total {{ steps.search.output.total }}' } },
        { id: 'u', action: 'demo.sleep', parameters: { ms: 1, value: '{{ steps.search.output.items }}' } },
      ],
    });
    expect(r.errors).toEqual([]);
  });

  it('does not check outputs of tools without an output schema', () => {
    const r = validate({
      steps: [
        { id: 'ask', action: 'llm.call', parameters: { prompt: 'x' } },
        { id: 'b', action: 'demo.sleep', parameters: { ms: '{{ steps.ask.output.anything.at.all }}' } },
      ],
    });
    expect(r.errors).toEqual([]);
  });

  it('type-checks state paths written by a step with an output schema', () => {
    const writer = { ...search, output_path: 'state.results || state.error' };
    const ok = validate({
      steps: [
        writer,
        { id: 'b', action: 'http.get', parameters: { url: '{{ state.results.items[0].url }}' } },
      ],
    });
    expect(ok.errors).toEqual([]);
    const bad = validate({
      steps: [writer, { id: 'b', action: 'demo.sleep', parameters: { ms: '{{ state.results.items }}' } }],
    });
    expect(bad.errors[0]?.message).toContain(
      'is an array but parameters.ms of tool demo.sleep expects a number',
    );
    const missing = validate({
      steps: [writer, { id: 'b', action: 'llm.call', parameters: { prompt: '{{ state.results.nope }}' } }],
    });
    expect(codes(missing.errors)).toEqual(['bad_reference']);
    // The failure branch holds an error, which no schema describes; initial state is unknown too.
    const error = validate({
      steps: [writer, { id: 'b', action: 'demo.sleep', parameters: { ms: '{{ state.error.code }}' } }],
    });
    expect(error.errors).toEqual([]);
    const initial = validate({
      steps: [{ id: 'b', action: 'demo.sleep', parameters: { ms: '{{ state.given }}' } }],
    });
    expect(initial.errors).toEqual([]);
  });

  it('does not type-check a state path a root merge may write against the merging tool’s schema', () => {
    // web.search's output has no `given`, but after a merge `state.given` may still be initial state.
    const merged = validate({
      steps: [
        { ...search, output_path: 'state' },
        { id: 'b', action: 'demo.sleep', parameters: { ms: '{{ state.given }}' } },
        { id: 'c', action: 'demo.sleep', parameters: { ms: '{{ state.items }}' } },
      ],
    });
    expect(merged.errors).toEqual([]);
    expect(merged.plan?.steps[0]?.output_path).toBe('state');
    const dagger = validate({ steps: [{ ...search, output_path: '†state || †state.error' }] });
    expect(dagger.errors).toEqual([]);
    expect(dagger.plan?.steps[0]?.output_path).toBe('state || state.error');
    const rootError = validate({ steps: [{ ...search, output_path: 'state.ok || state' }] });
    expect(rootError.errors.map((e) => [e.code, e.path])).toEqual([['bad_reference', ['output_path']]]);
  });
});

describe('imported notations', () => {
  it('normalises seed-004 dagger references and output paths', () => {
    const r = validate({
      steps: [
        {
          id: 'pay',
          action: 'demo.sleep',
          parameters: { ms: '†input.amount' },
          output_path: '†state.receipt || †state.error',
        },
        {
          id: 'confirm',
          action: 'llm.call',
          parameters: { prompt: 'Receipt: †state.receipt' },
          when: '†state.receipt != null',
        },
      ],
    });
    expect(r.errors).toEqual([]);
    expect(r.plan?.steps[0]).toMatchObject({
      parameters: { ms: '{{ input.amount }}' },
      output_path: 'state.receipt || state.error',
    });
    expect(r.plan?.steps[1]).toMatchObject({
      parameters: { prompt: 'Receipt: {{ state.receipt }}' },
      when: '{{ state.receipt }} != null',
    });
  });

  it('accepts seed-001 subtasks with their runtime fields', () => {
    const r = validate({
      goal: 'g',
      subtasks: [{ id: 'search', description: 'Search for sources', dependencies: [], status: 'pending' }],
    });
    expect(r.errors).toEqual([]);
    expect(r.plan?.steps[0]).toMatchObject({
      id: 'search',
      action: 'llm.call',
      parameters: { prompt: 'Search for sources' },
    });
  });
});
