import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../src/executor/tools';
import { convertTeaYaml } from '../../src/import/tea-yaml';
import { MAX_PLAN_STEPS } from '../../src/plan/config';
import type { TeaMeta } from '../../src/plan/tea-meta';
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
  it('converts the seed’s Complete Workflow Example: one step per node, with: kept as Jinja in metadata.tea', () => {
    const r = convert(RESEARCH_PLANNER);
    expect(r.plan.goal).toBe('research-planner');
    expect(r.plan.steps.map((s) => [s.id, s.action, s.parameters, s.dependencies, s.output_path])).toEqual([
      ['plan_research', 'plan.decompose', {}, [], 'state'],
      ['execute_research', 'plan.execute', {}, ['plan_research'], 'state'],
      ['check_completion', 'plan.status', {}, ['execute_research'], 'state'],
      ['synthesize', 'llm.call', {}, ['check_completion'], 'state'],
    ]);
    const tea = (r.plan.metadata as { tea: TeaMeta }).tea;
    expect(tea.params.plan_research).toEqual({
      goal: '{{ state.user_goal }}',
      strategy: 'hierarchical',
      max_depth: 2,
      model: 'gpt-4',
    });
    // TEA's planning actions read plan (and the results) from the state when the node leaves them out.
    expect(tea.params.check_completion).toEqual({ include_details: false, plan: '{{ state.plan }}' });
    expect(tea.params.execute_research).toMatchObject({
      plan: '{{ state.plan }}',
      subtask_results: '{{ state.subtask_results }}',
      subtask_executor: { action: 'llm.call', with: { model: 'gpt-4' } },
    });
    expect(tea.raw).toEqual({
      execute_research: ['subtask_executor'],
      plan_research: ['prompt_template', 'planner.prompt_template'],
    });
    // Where each template string starts, for run-time errors.
    expect(tea.lines.synthesize).toEqual({ 'messages.1.content': 44 });
    expect(tea.graph).toBeUndefined();
    expect(r.stateReads.map((x) => x.key)).toEqual(['user_goal', 'plan', 'subtask_results', 'final_result']);
    expect(r.lines).toEqual({ plan_research: 9, execute_research: 17, check_completion: 30, synthesize: 35 });
    expect(r.plan.metadata).toMatchObject({
      imported_from: 'tea-yaml',
      workflow: 'research-planner',
      state_schema: { user_goal: 'str', plan: 'dict', subtask_results: 'dict', final_result: 'str' },
    });
  });

  it('validates with the plan.* tools registered (parameters are checked when they are rendered)', () => {
    const tools = toolsNamed('plan.decompose', 'plan.execute', 'plan.status', 'llm.call');
    const v = validate(convert(RESEARCH_PLANNER).plan, tools);
    expect(v.errors).toEqual([]);
    expect(dependencies(v.plan!)).toEqual({
      plan_research: [],
      execute_research: ['plan_research'],
      check_completion: ['execute_research'],
      synthesize: ['check_completion'],
    });
  });

  it('refuses a with: key the node’s tool does not take, though its values are templates rendered later', () => {
    const source = [
      'name: summary',
      'nodes:',
      '  - name: summarise',
      '    action: llm.call',
      '    with:',
      '      prompt: "Summarise {{ state.text }}"',
      '      temprature: 0.2',
      '      messages:',
      '        - role: user',
      '          content: "{{ state.text }}"',
      '          nmae: reader',
      'edges:',
      '  - from: __start__',
      '    to: summarise',
    ].join('\n');
    const v = validate(convert(source).plan, createToolRegistry({}));
    expect(v.errors.map((e) => [e.code, e.step_id, e.path, e.message])).toEqual([
      [
        'invalid_parameters',
        'summarise',
        ['parameters', 'temprature'],
        expect.stringContaining(
          'unknown parameter "temprature" (did you mean "temperature"?); tool llm.call takes',
        ),
      ],
      [
        'invalid_parameters',
        'summarise',
        ['parameters', 'messages', 0, 'nmae'],
        'Step "summarise": parameters.messages[0].nmae: unknown key "nmae"; parameters.messages[0] of tool llm.call takes role, content',
      ],
    ]);
  });

  it('with only the built-in tools, the findings are exactly the unknown plan.* actions', () => {
    const v = validate(convert(RESEARCH_PLANNER).plan, createToolRegistry({}));
    expect(v.errors.map((e) => [e.code, e.step_id])).toEqual([
      ['unknown_tool', 'plan_research'],
      ['unknown_tool', 'execute_research'],
      ['unknown_tool', 'check_completion'],
    ]);
  });

  it('follows implicit chaining, goto, __start__; output: key, output: mapping, no output: merge', () => {
    const r = convert(`
name: greeter
variables:
  greeting: Hello
nodes:
  - name: intro
    uses: demo.echo
    with: { text: "{{ variables.greeting }}, {{ state.name }}" }
    output: said
  - name: skipped
    uses: demo.echo
  - name: shout
    uses: demo.echo
    with:
      loud: "{{ state.said.text }}!"
    output:
      title: "{{ result.loud | upper }}"
  - name: last
    uses: demo.echo
navigation:
  __start__: intro
  intro: shout
`);
    expect(r.plan.steps.map((s) => [s.id, s.output_path, s.dependencies])).toEqual([
      ['intro', 'state.said', []],
      ['shout', 'state', ['intro']],
      ['last', 'state', ['shout']],
    ]);
    const tea = (r.plan.metadata as { tea: TeaMeta }).tea;
    expect(tea.outputs).toEqual({ shout: { title: '{{ result.loud | upper }}' } });
    expect(tea.variables).toEqual({ greeting: 'Hello' });
    expect(r.plan.metadata).toMatchObject({ unreached_nodes: ['skipped'] });
  });

  it('a workflow with conditions runs as a graph: rules by TEA’s precedence, node conditions, max_iterations', () => {
    const r = convert(`max_iterations: 5
settings:
  llm: { model: "\${OPENAI_MODEL:-gpt-4}", api_key: "\${OPENAI_API_KEY}" }
nodes:
  - name: a
    uses: demo.echo
    goto:
      - if: "state.x > 1"
        to: b
      - to: a
  - name: b
    uses: demo.echo
    condition: "{{ state.ready }}"
  - name: c
    uses: demo.echo
edges:
  - { from: b, to: a, condition: "state.again" }
  - { from: b, to: c }
  - { from: a, to: c }
`);
    expect(r.plan.steps.map((s) => s.dependencies)).toEqual([[], [], []]);
    const tea = (r.plan.metadata as { tea: TeaMeta }).tea;
    expect(tea.graph).toEqual({
      entry: 'a',
      max_iterations: 5,
      nodes: {
        // goto wins over edges; conditional edges first, the plain one last; the last node ends.
        a: { next: [{ to: 'b', if: 'state.x > 1' }, { to: 'a' }] },
        b: { condition: '{{ state.ready }}', next: [{ to: 'a', if: 'state.again' }, { to: 'c' }] },
        c: { next: [{ to: '__end__' }] },
      },
    });
    expect(tea.env_names).toEqual(['OPENAI_API_KEY', 'OPENAI_MODEL']);
    expect(tea.settings).toEqual({
      llm: { model: '${OPENAI_MODEL:-gpt-4}', api_key: '${OPENAI_API_KEY}' },
    });
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
        Say it {{ state.tone | upper( }}
  - name: loop
    type: while_loop
  - name: bad name
    uses: demo.echo
imports:
  - path: ./actions.py
`);
    expect(errors.map((e) => [e.code, e.line])).toEqual([
      ['unsupported_node', 15],
      ['bad_node', 13],
      ['unsupported_node', 3],
      ['template_error', 10],
      ['unsupported_node', 11],
    ]);
    expect(errors[3]!.message).toMatch(/^line 10: node "ask": the template in with.prompt does not parse: /);
    expect(errors[4]!.message).toBe(
      'line 11: node "loop": type: while_loop nodes cannot run here; use an action node (uses:)',
    );
  });

  it('refuses unconditional loops, parallel edges and unknown targets', () => {
    expect(
      errorsOf(`nodes: [{ name: a, uses: demo.echo }, { name: b, uses: demo.echo }]
navigation:
  a: b
  b: a
`)[0]!.message,
    ).toBe(
      'line 4: navigation returns to "a" with no condition to leave the loop, so it would never end; put a condition on the edge or goto that closes it',
    );
    expect(errorsOf('nodes: [{ name: a, uses: demo.echo }]\nnavigation:\n  a: c\n')[0]!.message).toBe(
      'line 3: navigation goes to "c", which is not a node (nodes: a)',
    );
    expect(
      errorsOf(
        'nodes: [{ name: a, uses: demo.echo }, { name: b, uses: demo.echo }]\nedges:\n  - { from: a, to: b, fan_in: b }\n',
      )[0]!.code,
    ).toBe('unsupported_navigation');
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

  // 3.5 MB of YAML scanned (100,001 nodes): seconds on a busy machine, past vitest's default 5 s.
  it(
    'refuses far more nodes than maxSteps before parsing; past the largest max_steps it says to split',
    { timeout: 60_000 },
    () => {
      const nodes = (n: number) => `nodes:\n${'  - { name: x, uses: demo.echo }\n'.repeat(n)}`;
      // Duplicate names: the refusal comes from the count alone, before any node is read.
      expect(convertTeaYaml(nodes(5), { maxSteps: 2 })).toEqual({
        ok: false,
        tooManySteps: true,
        errors: [
          {
            code: 'too_many_steps',
            message: `The workflow has 5 nodes, each a step; the limit (max_steps) is 2: raise config.max_steps (up to ${MAX_PLAN_STEPS}) or split the workflow`,
            line: 1,
            column: 1,
          },
        ],
      });
      const r = convertTeaYaml(nodes(MAX_PLAN_STEPS + 1), { maxSteps: MAX_PLAN_STEPS });
      expect(!r.ok && r.errors[0]!.message).toBe(
        `The workflow has ${MAX_PLAN_STEPS + 1} nodes, each a step; the limit (max_steps) is ${MAX_PLAN_STEPS}: split the workflow`,
      );
      // At the limit, and up to twice it, it is read: the duplicate names are found (validation
      // counts the steps of one that converts).
      for (const n of [2, 4]) {
        const read = convertTeaYaml(nodes(n), { maxSteps: 2 });
        expect(!read.ok && read.errors.map((e) => e.code)).toEqual(Array(n - 1).fill('duplicate_node'));
      }
    },
  );

  it('reads an alias as the last anchor of its name before it, as YAML does', () => {
    const r = convertTeaYaml(
      [
        'nodes:',
        '  - { name: a, uses: demo.echo, with: { first: &v one, again: *v } }',
        '  - { name: b, uses: demo.echo, with: { second: &v two, now: *v } }',
      ].join('\n'),
    );
    expect(r.ok && (r.plan.metadata as { tea: TeaMeta }).tea.params).toEqual({
      a: { first: 'one', again: 'one' },
      b: { second: 'two', now: 'two' },
    });
  });

  it('expands ordinary anchors and aliases in with:', () => {
    const r = convertTeaYaml(
      'defaults: &d { model: gpt-4, temperature: 0.2 }\nnodes:\n  - { name: a, uses: llm.call, with: { prompt: hi, opts: *d } }\n',
    );
    expect(r.ok && (r.plan.metadata as { tea: TeaMeta }).tea.params.a).toEqual({
      prompt: 'hi',
      opts: { model: 'gpt-4', temperature: 0.2 },
    });
  });
});
