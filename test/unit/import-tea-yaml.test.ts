import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../src/executor/tools';
import { convertTeaYaml } from '../../src/import/tea-yaml';
import { RESEARCH_PLANNER, dependencies, toolsNamed, validate } from './import-helpers';

function convert(source: string) {
  const r = convertTeaYaml(source);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r;
}

function errorsOf(source: string) {
  const r = convertTeaYaml(source);
  if (r.ok) throw new Error('expected the workflow to be refused');
  return r.errors;
}

describe('TEA YAML workflows', () => {
  it('converts the seed’s Complete Workflow Example into a chain that follows the navigation', () => {
    const r = convert(RESEARCH_PLANNER);
    expect(r.plan.goal).toBe('research-planner');
    expect(r.plan.steps).toEqual([
      {
        id: 'plan_research',
        description: 'plan_research',
        action: 'plan.decompose',
        parameters: { goal: '{{ state.user_goal }}', strategy: 'hierarchical', max_depth: 2, model: 'gpt-4' },
        dependencies: [],
        // Seed 001: planning actions set state variables — the result's keys merge into state.
        output_path: 'state',
      },
      {
        id: 'execute_research',
        description: 'execute_research',
        action: 'plan.execute',
        parameters: {
          plan: '{{ state.plan }}',
          parallel: true,
          max_concurrent: 3,
          on_subtask_failure: 'replan',
          max_replans: 2,
          subtask_executor: { action: 'llm.call', with: { model: 'gpt-4' } },
        },
        dependencies: ['plan_research'],
        output_path: 'state',
      },
      {
        id: 'check_completion',
        description: 'check_completion',
        action: 'plan.status',
        // plan.status reads state.plan (and the results) by default in TEA; here they are passed.
        parameters: {
          include_details: false,
          plan: '{{ state.plan }}',
          subtask_results: '{{ state.subtask_results }}',
        },
        dependencies: ['execute_research'],
        output_path: 'state',
      },
      {
        id: 'synthesize',
        description: 'synthesize',
        action: 'llm.call',
        parameters: {
          model: 'gpt-4',
          messages: [
            { role: 'system', content: 'Synthesize the research results into a comprehensive summary.' },
            {
              role: 'user',
              content: 'Goal: {{ state.user_goal }}\nResults: {{ state.subtask_results }}\n',
            },
          ],
        },
        dependencies: ['check_completion'],
        output_path: 'state.synthesize',
      },
    ]);
    expect(r.stateReads).toEqual([{ key: 'user_goal', node: 'plan_research', line: 9 }]);
    expect(r.lines).toEqual({ plan_research: 9, execute_research: 17, check_completion: 30, synthesize: 35 });
    expect(r.plan.metadata).toMatchObject({
      imported_from: 'tea-yaml',
      workflow: 'research-planner',
      state_schema: { user_goal: 'str', plan: 'dict', subtask_results: 'dict', final_result: 'str' },
    });
  });

  it('validates with the plan.* tools registered', () => {
    const tools = toolsNamed('plan.decompose', 'plan.execute', 'plan.status', 'llm.call');
    const v = validate(convert(RESEARCH_PLANNER).plan, tools);
    expect(v.errors).toEqual([]);
    expect(dependencies(v.plan!)).toEqual({
      plan_research: [],
      execute_research: ['plan_research'],
      check_completion: ['execute_research'],
      // Each merge waits for the one before it; a reader waits for the last merge above it.
      synthesize: ['check_completion'],
    });
  });

  it('with only the built-in tools, the findings are exactly the unknown plan.* actions', () => {
    const v = validate(convert(RESEARCH_PLANNER).plan, createToolRegistry({}));
    expect(v.errors.map((e) => [e.code, e.step_id])).toEqual([
      ['unknown_tool', 'plan_research'],
      ['unknown_tool', 'execute_research'],
      ['unknown_tool', 'check_completion'],
    ]);
  });

  it('follows implicit chaining, goto, __start__ and output:, and inlines variables', () => {
    const r = convert(`
name: greeter
variables:
  greeting: Hello
  retries: 3
nodes:
  - name: intro
    uses: demo.echo
    with: { text: "{{ variables.greeting }}, {{ state.name }}", n: "{{ variables.retries }}" }
    output: said
  - name: skipped
    uses: demo.echo
  - name: shout
    uses: demo.echo
    with:
      loud: "{{ state.said.text }}!"
      all: "{{ state.said | tojson }}"
navigation:
  __start__: intro
  intro: shout
`);
    expect(r.plan.steps.map((s) => [s.id, s.parameters, s.output_path, s.dependencies])).toEqual([
      ['intro', { text: 'Hello, {{ state.name }}', n: 3 }, 'state.said', []],
      ['shout', { loud: '{{ state.said.text }}!', all: '{{ state.said }}' }, 'state.shout', ['intro']],
    ]);
    expect(r.plan.metadata).toMatchObject({ unreached_nodes: ['skipped'] });
    expect(r.stateReads.map((s) => s.key)).toEqual(['name']);
  });

  it('merges only planning actions into state; other nodes and output: keep one key', () => {
    const r = convert(`
nodes:
  - name: draft
    uses: llm.call
    with: { prompt: "Plan {{ state.topic }}" }
  - name: decompose
    uses: plan.decompose
    with: { goal: "{{ state.content }}" }
  - name: kept
    uses: plan.status
    output: progress_report
  - name: report
    uses: demo.echo
    with:
      plan: "{{ state.plan }}"
      counts: "{{ state.progress_report.status }}"
      trace: "{{ state.planning_trace }}"
      old: "{{ state.decompose }}"
`);
    expect(r.plan.steps.map((s) => [s.id, s.output_path, s.parameters])).toEqual([
      ['draft', 'state.draft', { prompt: 'Plan {{ state.topic }}' }],
      // llm.call's content stays in its node's key, so the read is pointed there.
      ['decompose', 'state', { goal: '{{ state.draft.content }}' }],
      // output: names where the whole result goes, merge or not; plan still comes from the merge.
      ['kept', 'state.progress_report', { plan: '{{ state.plan }}' }],
      [
        'report',
        'state.report',
        {
          plan: '{{ state.plan }}',
          counts: '{{ state.progress_report.status }}',
          trace: '{{ state.planning_trace }}',
          old: '{{ state.decompose }}',
        },
      ],
    ]);
    // A merged node leaves no state.<node name>: reading it needs the initial state.
    expect(r.stateReads.map((x) => x.key)).toEqual(['topic', 'decompose']);
  });

  it('accepts legacy edges', () => {
    const r = convert(`
nodes:
  - { name: b, uses: demo.echo }
  - { name: a, uses: demo.echo }
edges:
  - { from: __start__, to: a }
  - { from: a, to: b }
  - { from: b, to: __end__ }
`);
    expect(r.plan.steps.map((s) => s.id)).toEqual(['a', 'b']);
  });

  it('reports YAML syntax errors with their line', () => {
    expect(errorsOf('nodes:\n  - name: a\n    uses: [demo.echo\n')[0]).toMatchObject({
      code: 'yaml_syntax',
      line: 4,
    });
  });

  it('explains what cannot be imported, with the line of each problem', () => {
    const errors = errorsOf(`nodes:
  - name: think
    run: |
      return {"x": 1}
  - name: ask
    uses: llm.call
    with:
      prompt: |
        Goal: {{ state.goal }}
        Say it {{ state.tone | upper }}
  - name: plan
    uses: plan.decompose
    with:
      goal: x
      prompt_template: "Goal: {{ goal }}"
  - name: bad name
    uses: demo.echo
`);
    expect(errors.map((e) => [e.code, e.line])).toEqual([
      ['bad_node', 16],
      ['unsupported_node', 2],
      ['unsupported_template', 10],
      ['unsupported_template', 15],
    ]);
    expect(errors[2]!.message).toBe(
      'line 10: node "ask": filter "upper" in {{ state.tone | upper }} is not supported (only tojson); compute the value in an earlier node',
    );
    expect(errors[3]!.message).toBe(
      'line 15: node "plan": {{ goal }} reads "goal"; workflow templates can read state.<key> and variables.<key>',
    );
  });

  it('refuses conditional navigation, loops and unknown targets', () => {
    expect(
      errorsOf(`nodes:
  - name: a
    uses: demo.echo
    goto:
      - if: "state.ok"
        to: a
`)[0]!.code,
    ).toBe('unsupported_navigation');
    expect(
      errorsOf(`nodes: [{ name: a, uses: demo.echo }, { name: b, uses: demo.echo }]
navigation:
  a: b
  b: a
`)[0]!.message,
    ).toBe(
      'line 4: navigation returns to "a"; a loop cannot be imported (a plan is a DAG, each node runs once)',
    );
    expect(errorsOf('nodes: [{ name: a, uses: demo.echo }]\nnavigation:\n  a: c\n')[0]!.message).toBe(
      'line 3: navigation goes to "c", which is not a node (nodes: a)',
    );
  });

  it('refuses a workflow without nodes or a node without an action', () => {
    expect(errorsOf('name: empty\n')[0]!.message).toBe(
      'line 1: nodes: must be a non-empty list of {name, uses, with}',
    );
    expect(errorsOf('nodes:\n  - name: a\n    with: {x: 1}\n')[0]!.message).toBe(
      'line 2: node "a" needs an action: uses: <tool> (or action: <tool>)',
    );
  });
});

describe('TEA YAML limits', () => {
  it('refuses an alias bomb instead of expanding it', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'nodes:',
      '  - name: n',
      '    uses: demo.echo',
      '    with: { v: *d }',
    ].join('\n');
    const r = convertTeaYaml(bomb);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors[0]!.code).toBe('yaml_syntax');
  });

  it('expands ordinary anchors and aliases in with:', () => {
    const r = convertTeaYaml(
      'defaults: &d { model: gpt-4, temperature: 0.2 }\nnodes:\n  - { name: a, uses: llm.call, with: { prompt: hi, opts: *d } }\n',
    );
    expect(r.ok && r.plan.steps[0]!.parameters).toEqual({
      prompt: 'hi',
      opts: { model: 'gpt-4', temperature: 0.2 },
    });
  });
});
