import readme from '../../README.md?raw';
import { describe, expect, it } from 'vitest';
import { api, events, waitForRun } from './helpers';
import type { Json } from './helpers';

/** Seed 001's "Complete Workflow Example", verbatim (the unit tests share the same text). */
import { RESEARCH_PLANNER } from '../unit/import-helpers';

async function created(body: unknown): Promise<string> {
  const r = await api('POST', '/v1/runs', body);
  if (r.status !== 201) throw new Error(`POST /v1/runs → ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.run_id as string;
}

/** Per step: the seq of its StepScheduled event and of its ToolReturned event. */
function timeline(evs: Json[]): Record<string, { scheduled: number; returned: number }> {
  const out: Record<string, { scheduled: number; returned: number }> = {};
  for (const e of evs) {
    const id = e.references?.step_id as string | undefined;
    if (!id) continue;
    out[id] ??= { scheduled: -1, returned: -1 };
    if (e.event_type === 'StepScheduled' && out[id].scheduled < 0) out[id].scheduled = e.seq;
    if (e.event_type === 'ToolReturned') out[id].returned = e.seq;
  }
  return out;
}

describe('POST /v1/runs with a seed-004 _tool call list as the plan', () => {
  const calls = (key: string, failTimes: number) => [
    { _tool: 'demo.echo', name: '†input.name', _outputPath: '†state.profile' },
    {
      _tool: 'demo.flaky',
      fail_times: failTimes,
      permanent: true,
      key,
      _outputPath: '†state.receipt || †state.error',
    },
    { _tool: 'demo.echo', receipt: '†state.receipt', for: '†state.profile.name' },
    { _tool: 'demo.echo', report: '†state.error' },
  ];

  it('runs the success branch: the receipt is written and the step reading the error is skipped', async () => {
    const runId = await created({
      plan: calls(`imports-ok-${Date.now()}`, 0),
      input: { name: 'Ada' },
      config: { execution_mode: 'parallel', retry_failed_steps: 0 },
    });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_statuses).toEqual({
      demo_echo_1: 'completed',
      demo_flaky_1: 'completed',
      demo_echo_2: 'completed',
      demo_echo_3: 'skipped',
    });
    expect(run.step_results.demo_echo_2).toEqual({ receipt: { attempts: 1 }, for: 'Ada' });
    expect(run.state).toMatchObject({ profile: { name: 'Ada' }, receipt: { attempts: 1 } });
    expect(run.plan.steps[1].dependencies).toEqual([]);
  });

  it('routes a failure to the error path, runs the step that reports it and skips the one that needed the receipt', async () => {
    const runId = await created({
      plan: { calls: calls(`imports-fail-${Date.now()}`, 5), output: null },
      input: { name: 'Ada' },
      config: { retry_failed_steps: 0 },
    });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_statuses).toMatchObject({
      demo_flaky_1: 'failed',
      demo_echo_2: 'skipped',
      demo_echo_3: 'completed',
    });
    expect(run.step_results.demo_echo_3.report).toMatchObject({ code: 'demo_flaky' });
    expect(run.state.error).toMatchObject({ code: 'demo_flaky' });
  });

  it('refuses a malformed call list with 422 and the position of each problem', async () => {
    const r = await api('POST', '/v1/runs', {
      plan: [{ _tool: 'demo.echo', _outputPath: 'receipt' }, { x: 1 }],
    });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('invalid_plan');
    expect(r.body.error.details).toEqual({
      format: 'tool-calls',
      errors: [
        expect.objectContaining({ code: 'bad_output_path', path: [0, '_outputPath'] }),
        expect.objectContaining({ code: 'missing_tool', path: [1, '_tool'] }),
      ],
    });
  });
});

describe('the README’s LLMCompiler example', () => {
  it('runs as written with the demo tools, positional arguments naming the tools’ fields', async () => {
    const block = /```text\n(Thought: both lookups are independent[\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const r = await api('POST', '/v1/runs', {
      format: 'llmcompiler',
      source: block,
      config: { execution_mode: 'parallel' },
    });
    expect(r.status).toBe(201);
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.plan.steps[0].parameters).toEqual({ ms: 100, value: 'Ronaldo is 41' });
    expect(run.step_results['3']).toEqual({
      first: 'Ronaldo is 41',
      second: { player: 'Messi', age: 39 },
      note: 'compare Ronaldo is 41 with the other',
    });
  });

  it('refuses a field given by position and by name, with its line', async () => {
    const r = await api('POST', '/v1/runs', {
      format: 'llmcompiler',
      source: '1. demo.sleep(100, ms=5)\n2. join()',
    });
    expect(r.status).toBe(422);
    expect(r.body.error.details.errors).toEqual([
      expect.objectContaining({ code: 'bad_arguments', line: 1 }),
    ]);
  });
});

describe('the README’s TEA YAML example', () => {
  it('runs as written with the demo tools, the first node’s output read from the state', async () => {
    const source = /```yaml\n(name: edge-notes\n[\s\S]*?)```/.exec(readme)?.[1];
    expect(source).toBeDefined();
    const id = await created({ format: 'tea-yaml', source, input: { topic: 'edge' } });
    const run = await waitForRun(id);
    expect({ status: run.status, final_output: run.final_output }).toEqual({
      status: 'completed',
      final_output: { text: 'NOTES ON EDGE' },
    });
    expect(run.state.draft).toEqual({ text: 'Notes on edge' });
  });
});

describe('POST /v1/runs with an LLMCompiler plan', () => {
  const source = [
    'Thought: both waits are independent',
    '1. demo.sleep(ms=150, value="left")',
    '2. demo.sleep(150, value="right")',
    '3. demo.echo(pair=[$1, $2], note="got $1 and ${2}")',
    '4. join()<END_OF_PLAN>',
  ].join('\n');

  it('runs independent steps in parallel and the joining step after both', async () => {
    const r = await api('POST', '/v1/runs', {
      format: 'llmcompiler',
      source, // `demo.sleep(150, …)`: the positional 150 fills demo.sleep's first field, ms
      config: { execution_mode: 'parallel', max_parallel: 3 },
    });
    expect(r.status).toBe(201);
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(run.step_results['3']).toEqual({ pair: ['left', 'right'], note: 'got left and right' });
    expect(run.plan.steps[0].description).toBe('both waits are independent');
    const t = timeline(await events(r.body.run_id));
    // Both sleeps were scheduled before either returned: they overlapped.
    expect(Math.max(t['1']!.scheduled, t['2']!.scheduled)).toBeLessThan(
      Math.min(t['1']!.returned, t['2']!.returned),
    );
    expect(t['3']!.scheduled).toBeGreaterThan(Math.max(t['1']!.returned, t['2']!.returned));
  });

  it('answers validation findings with the source line of the step', async () => {
    // Three positional arguments for a tool with two fields stay in `args`, which demo.sleep does not
    // take (named, not dropped), so its `ms` is missing too.
    const tooMany = source.replace('demo.sleep(150, value="right")', 'demo.sleep(150, "right", 3)');
    const r = await api('POST', '/v1/runs', { format: 'llmcompiler', source: tooMany });
    expect(r.status).toBe(422);
    expect(r.body.error.details.errors).toEqual([
      expect.objectContaining({
        code: 'invalid_parameters',
        step_id: '2',
        line: 3,
        path: ['parameters', 'args'],
        message: 'Step "2": parameters.args: unknown parameter "args"; tool demo.sleep takes ms, value',
      }),
      expect.objectContaining({
        code: 'invalid_parameters',
        step_id: '2',
        line: 3,
        path: ['parameters', 'ms'],
      }),
    ]);
  });

  it('answers a source that does not parse with 422 and its line', async () => {
    const r = await api('POST', '/v1/runs', {
      format: 'llmcompiler',
      source: '1. demo.echo(x=1)\n2. join()\n3. demo.echo(y=$1)',
    });
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({
      code: 'invalid_plan',
      message:
        'The LLMCompiler plan could not be imported: line 3: demo.echo(…) comes after join() on line 2, which ends the plan',
      details: { format: 'llmcompiler', errors: [{ code: 'after_join', line: 3 }] },
    });
  });

  it('names the tool a misspelt call likely meant beside the text’s own problems', async () => {
    const r = await api('POST', '/v1/runs', {
      format: 'llmcompiler',
      source: '1. demo.ecoh(x=1)\n2. join()\n3. demo.echo(y=$1)',
    });
    expect(r.status).toBe(422);
    expect(r.body.error.details.errors).toEqual([
      expect.objectContaining({
        code: 'unknown_tool',
        line: 1,
        message: 'line 1: unknown tool "demo.ecoh" (did you mean "demo.echo"?)',
      }),
      expect.objectContaining({ code: 'after_join', line: 3 }),
    ]);
  });

  it('answers "format" without "source" with 400', async () => {
    const r = await api('POST', '/v1/runs', { format: 'llmcompiler' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
  });
});

describe('POST /v1/runs with a TEA YAML workflow', () => {
  const greeter = `name: greeter
state_schema:
  name: str
  greeting: dict
nodes:
  - name: greet
    uses: demo.echo
    with:
      message: "Hello, {{ state.name }}"
    output: greeting
  - name: wait
    uses: demo.sleep
    with:
      ms: 20
      value: "{{ state.greeting.message }}"
    output: wait
  - name: shout
    action: demo.echo
    with:
      text: "{{ state.wait }}!"
      summary: "greeting={{ state.greeting | tojson }}"
      who: "{{ state.name }}"
navigation:
  greet: wait
  wait: shout
  shout: __end__
`;

  it('runs the nodes in navigation order from the initial state; results land where TEA puts them', async () => {
    const runId = await created({ format: 'tea-yaml', source: greeter, input: { name: 'Ada' } });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.goal).toBe('greeter');
    expect(run.state).toEqual({
      name: 'Ada',
      greeting: { message: 'Hello, Ada' },
      wait: 'Hello, Ada',
      // No output: the dict merges into state; Jinja's tojson writes JSON as Python's json.dumps does.
      text: 'Hello, Ada!',
      summary: 'greeting={"message": "Hello, Ada"}',
      who: 'Ada',
    });
    const t = timeline(await events(runId));
    expect(t.greet!.returned).toBeLessThan(t.wait!.scheduled);
    expect(t.wait!.returned).toBeLessThan(t.shout!.scheduled);
  });

  it('refuses an initial state that does not fit state_schema, naming the key and line', async () => {
    const r = await api('POST', '/v1/runs', { format: 'tea-yaml', source: greeter, input: { name: 5 } });
    expect(r.status).toBe(422);
    expect(r.body.error.details.errors).toEqual([
      {
        code: 'state_schema',
        message:
          'line 3: input: state.name should be str (state_schema) but is a number — send it as the string "5" (on the command line: --input name=\'"5"\')',
        line: 3,
      },
    ]);
  });

  it('refuses an input that is not an object with 400', async () => {
    const r = await api('POST', '/v1/runs', { format: 'tea-yaml', source: greeter, input: 'Ada' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
  });

  it('validates the seed’s Complete Workflow Example in a dry run', async () => {
    const tools = (await api('GET', '/v1/tools')).body.tools as { name: string }[];
    const names = new Set(tools.map((t) => t.name));
    const r = await api('POST', '/v1/runs', {
      format: 'tea-yaml',
      source: RESEARCH_PLANNER,
      input: { user_goal: 'Compare edge runtimes' },
      config: { mode: 'lazy' },
    });
    if (['plan.decompose', 'plan.execute', 'plan.status'].every((n) => names.has(n))) {
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ mode: 'lazy', valid: true, errors: [] });
      expect(r.body.plan.steps.map((s: Json) => s.id)).toEqual([
        'plan_research',
        'execute_research',
        'check_completion',
        'synthesize',
      ]);
    } else {
      expect(r.status).toBe(422);
      expect(r.body.error.details.errors.map((e: Json) => [e.code, e.step_id, e.line])).toEqual([
        ['unknown_tool', 'plan_research', 9],
        ['unknown_tool', 'execute_research', 17],
        ['unknown_tool', 'check_completion', 30],
      ]);
    }
  });
});
