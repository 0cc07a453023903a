import { describe, expect, it } from 'vitest';
import { prepareRunPlan, withSourceLines } from '../../src/import/run-request';
import { RESEARCH_PLANNER } from './import-helpers';

describe('what POST /v1/runs turns into a plan', () => {
  it('passes a §2 plan and a goal through untouched', () => {
    const plan = { steps: [{ id: 'a', action: 'demo.echo' }] };
    expect(prepareRunPlan({ plan })).toEqual({ ok: true, plan });
    expect(prepareRunPlan({ goal: 'g' })).toEqual({ ok: true, plan: undefined });
  });

  it('converts a _tool array given as the plan', () => {
    const r = prepareRunPlan({ plan: [{ _tool: 'demo.echo', x: '†input.x' }] });
    expect(r.ok && r.plan).toMatchObject({
      steps: [{ id: 'demo_echo_1', parameters: { x: '{{ input.x }}' } }],
    });
  });

  it('answers a malformed _tool array with 422-style invalid_plan and every problem', () => {
    const r = prepareRunPlan({ plan: [{ x: 1 }, { _tool: 'a', _outputPath: 'nope' }] });
    expect(r).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_plan',
        message: expect.stringMatching(
          /^The tool-call list could not be imported: plan\[0\]: .*\(all problems are in details\.errors\)$/,
        ),
        details: { format: 'tool-calls', errors: [{ code: 'missing_tool' }, { code: 'bad_output_path' }] },
      },
    });
  });

  it('answers request-shape mistakes with invalid_request', () => {
    const shape = (req: Parameters<typeof prepareRunPlan>[0]) => {
      const r = prepareRunPlan(req);
      return r.ok ? null : [r.error.code, r.error.message];
    };
    expect(shape({ source: '1. a()' })).toEqual([
      'invalid_request',
      '"source" needs "format": "tea-yaml" or "llmcompiler"',
    ]);
    expect(shape({ format: 'llmcompiler' })).toEqual([
      'invalid_request',
      '"format": "llmcompiler" needs the text to import in "source"',
    ]);
    expect(shape({ format: 'llmcompiler', source: '1. a()', plan: { steps: [] } })?.[0]).toBe(
      'invalid_request',
    );
    expect(shape({ format: 'tea-yaml', source: RESEARCH_PLANNER, input: ['goal'] })).toEqual([
      'invalid_request',
      'For a TEA workflow "input" is its initial state: send an object such as {"user_goal": "…"}',
    ]);
  });

  it('refuses a goal beside a plan whose own goal is another text, and takes one that agrees', () => {
    const plan = { goal: 'Translate the notes', steps: [{ id: 'a', action: 'demo.echo' }] };
    expect(prepareRunPlan({ goal: 'Summarise the notes', plan })).toEqual({
      ok: false,
      error: {
        code: 'invalid_request',
        message:
          '"goal" ("Summarise the notes") and the plan\'s own "goal" ("Translate the notes") differ: send one of them, or the same text in both',
      },
    });
    expect(prepareRunPlan({ goal: ' Translate the notes ', plan }).ok).toBe(true);
    expect(prepareRunPlan({ goal: 'Summarise', plan: { ...plan, goal: '' } }).ok).toBe(true);
    expect(prepareRunPlan({ goal: '', plan }).ok).toBe(true);
    const long = prepareRunPlan({ goal: 'x'.repeat(500), plan });
    expect(!long.ok && long.error.message).toContain(`"${'x'.repeat(59)}…"`);
  });

  it('makes a TEA workflow’s input its initial state, checked against its state_schema', () => {
    const ok = prepareRunPlan({ format: 'tea-yaml', source: RESEARCH_PLANNER, input: { user_goal: 'edge' } });
    expect(ok).toMatchObject({ ok: true, state: { user_goal: 'edge' }, lines: { synthesize: 35 } });
    // TEA reads a key nobody wrote as None: a workflow may start without it.
    expect(prepareRunPlan({ format: 'tea-yaml', source: RESEARCH_PLANNER }).ok).toBe(true);
    const wrong = prepareRunPlan({
      format: 'tea-yaml',
      source: RESEARCH_PLANNER,
      input: { user_goal: ['edge'] },
    });
    expect(wrong).toEqual({
      ok: false,
      error: {
        code: 'invalid_plan',
        message:
          'The TEA workflow could not be imported: line 3: input: state.user_goal should be str (state_schema) but is a list',
        details: {
          format: 'tea-yaml',
          errors: [
            {
              code: 'state_schema',
              message: 'line 3: input: state.user_goal should be str (state_schema) but is a list',
              line: 3,
            },
          ],
        },
      },
    });
  });

  it('says how to send text when the state_schema wants a string and a number or boolean came', () => {
    const source = `state_schema:\n  topic: str\n  flag: Optional[string]\n  n: int\nnodes:\n  - name: a\n    uses: demo.echo\n    with: { t: "{{ state.topic }} {{ state.flag }} {{ state.n }}" }\n`;
    const r = prepareRunPlan({ format: 'tea-yaml', source, input: { topic: 5, flag: true, n: 'x' } });
    expect(r.ok).toBe(false);
    const messages = r.ok
      ? []
      : (r.error.details as { errors: { message: string }[] }).errors.map((e) => e.message);
    expect(messages).toEqual([
      `line 2: input: state.topic should be str (state_schema) but is a number — send it as the string "5" (on the command line: --input topic='"5"')`,
      `line 3: input: state.flag should be Optional[string] (state_schema) but is a boolean — send it as the string "true" (on the command line: --input flag='"true"')`,
      'line 4: input: state.n should be int (state_schema) but is a string',
    ]);
  });

  it('says what a plan was converted from, and lists the state a TEA workflow declares', () => {
    expect(prepareRunPlan({ plan: [{ _tool: 'demo.echo' }] })).toMatchObject({
      ok: true,
      format: 'tool-calls',
    });
    expect(prepareRunPlan({ format: 'llmcompiler', source: '1. demo.echo(x=1)\n2. join()' })).toMatchObject({
      ok: true,
      format: 'llmcompiler',
    });
    const tea = prepareRunPlan({
      format: 'tea-yaml',
      source: RESEARCH_PLANNER,
      input: { user_goal: 'edge' },
    });
    expect(tea).toMatchObject({
      ok: true,
      format: 'tea-yaml',
      stateKeys: ['user_goal', 'plan', 'subtask_results', 'final_result'],
    });
  });

  it('leaves the initial-state check out when asked (validation without an input)', () => {
    const r = prepareRunPlan(
      { format: 'tea-yaml', source: RESEARCH_PLANNER, input: { user_goal: 3 } },
      { requireState: false },
    );
    expect(r).toMatchObject({ ok: true, format: 'tea-yaml', state: { user_goal: 3 } });
    expect(r.ok && (r.plan as { steps: unknown[] }).steps).toHaveLength(4);
  });

  it('adds the source line to findings about imported steps', () => {
    const findings = [
      { code: 'unknown_tool' as const, message: 'x', step_id: '2' },
      { code: 'schema' as const, message: 'y' },
    ];
    expect(withSourceLines(findings, { '2': 7 })).toEqual([
      { code: 'unknown_tool', message: 'x', step_id: '2', line: 7 },
      { code: 'schema', message: 'y' },
    ]);
    expect(withSourceLines(findings, undefined)).toBe(findings);
  });
});
