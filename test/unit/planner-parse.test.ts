import { describe, expect, it } from 'vitest';
import { parsePlannerOutput } from '../../src/planner/parse';
import { readJson, stripCommentsAndTrailingCommas } from '../../src/planner/json-text';

const PLAN = {
  goal: 'g',
  steps: [
    { id: 'a', description: 'first', action: 'demo.echo', parameters: { x: 1 }, dependencies: [] },
    {
      id: 'b',
      description: 'second',
      action: 'demo.echo',
      parameters: { y: '{{ steps.a.output }}' },
      dependencies: ['a'],
    },
  ],
};
const JSON_PLAN = JSON.stringify(PLAN, null, 2);

function ok(raw: string) {
  const r = parsePlannerOutput(raw);
  if (!r.ok) throw new Error(`expected a plan, got: ${r.error}`);
  return r;
}

function err(raw: string): string {
  const r = parsePlannerOutput(raw);
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.plan)}`);
  return r.error;
}

describe('parsing a plan out of a model answer', () => {
  it('reads a bare §2 plan object', () => {
    const r = ok(JSON_PLAN);
    expect(r.format).toBe('plan');
    expect(r.plan).toEqual(PLAN);
  });

  it('reads a plan inside a ```json code fence with prose before and after', () => {
    const r = ok(
      `Sure! Here is the plan:\n\n\`\`\`json\n${JSON_PLAN}\n\`\`\`\n\nLet me know if you need changes.`,
    );
    expect(r.plan.steps).toEqual(PLAN.steps);
  });

  it('reads a plan in a fence without a language tag', () => {
    expect(ok(`\`\`\`\n${JSON_PLAN}\n\`\`\``).plan.steps).toHaveLength(2);
  });

  it('reads a plan surrounded by prose with no fence, skipping a small unrelated object before it', () => {
    const r = ok(`I considered {"thinking": true} first.\nThe plan is ${JSON.stringify(PLAN)} — done.`);
    expect(r.plan.steps).toEqual(PLAN.steps);
  });

  it('tolerates trailing commas and // and /* */ comments', () => {
    const text = `{
      // the plan
      "steps": [
        {"id": "a", "action": "demo.echo", "parameters": {"x": "http://not-a-comment.test"}, "dependencies": [],}, /* first */
      ],
    }`;
    const r = ok(text);
    expect(r.plan.steps).toEqual([
      { id: 'a', action: 'demo.echo', parameters: { x: 'http://not-a-comment.test' }, dependencies: [] },
    ]);
  });

  it('reads a bare array of steps', () => {
    const r = ok(JSON.stringify(PLAN.steps));
    expect(r.format).toBe('steps');
    expect(r.plan).toEqual({ steps: PLAN.steps });
  });

  it("converts seed 003's {planId, steps: [{id, type, toolId, input}]} and drops finish steps", () => {
    const r = ok(
      JSON.stringify({
        planId: 'p1',
        steps: [
          { id: 's1', type: 'tool', toolId: 'http.request', input: { url: 'https://a.test' } },
          { id: 's2', type: 'tool', toolId: 'demo.echo', input: 'hello', meta: { dependencies: ['s1'] } },
          { id: 's3', type: 'finish' },
        ],
      }),
    );
    expect(r.format).toBe('seed003');
    expect(r.plan).toEqual({
      steps: [
        { id: 's1', action: 'http.request', parameters: { url: 'https://a.test' }, dependencies: [] },
        { id: 's2', action: 'demo.echo', parameters: { input: 'hello' }, dependencies: ['s1'] },
      ],
    });
  });

  it("makes seed 003's message steps agent.message, whose output is the message", () => {
    const r = ok(
      JSON.stringify({
        planId: 'p3',
        steps: [
          { id: 'hi', type: 'message', input: 'Looking that up for you' },
          { id: 'note', type: 'message', input: { text: 'Found it' } },
        ],
      }),
    );
    expect(r.plan.steps).toEqual([
      {
        id: 'hi',
        action: 'agent.message',
        parameters: { message: 'Looking that up for you' },
        dependencies: [],
      },
      { id: 'note', action: 'agent.message', parameters: { message: 'Found it' }, dependencies: ['hi'] },
    ]);
  });

  it('runs seed 003 steps in the order listed unless references say otherwise, and keeps the finish result', () => {
    const r = ok(
      JSON.stringify({
        planId: 'p2',
        steps: [
          { id: 'a', type: 'tool', toolId: 'demo.echo', input: { x: 1 } },
          { id: 'b', type: 'tool', toolId: 'demo.echo', input: { y: 2 } },
          { id: 'c', type: 'tool', toolId: 'demo.echo', input: { from: '{{ steps.a.output.x }}' } },
          { id: 'end', type: 'finish', input: { answer: 'done' } },
        ],
      }),
    );
    expect(
      r.plan.steps.map((s) => [(s as { id: string }).id, (s as { dependencies: string[] }).dependencies]),
    ).toEqual([
      ['a', []],
      ['b', ['a']],
      ['c', []], // its reference to a is what it waits for
    ]);
    expect(r.plan.metadata).toEqual({ final_output: { answer: 'done' } });
  });

  it("converts seed 003's graph form {nodes, edges}", () => {
    const r = ok(
      JSON.stringify({
        nodes: {
          a: { type: 'tool', toolId: 'demo.echo', input: {} },
          b: { type: 'tool', toolId: 'demo.echo' },
        },
        edges: { b: ['a'] },
      }),
    );
    expect(r.format).toBe('graph');
    expect(r.plan.steps).toEqual([
      { id: 'a', action: 'demo.echo', parameters: {}, dependencies: [] },
      { id: 'b', action: 'demo.echo', dependencies: ['a'] },
    ]);
  });

  it('reads NDJSON step events, skipping reasoning lines and stopping at finish', () => {
    const text = [
      '{"type": "partialReasoning", "text": "thinking"}',
      '{"type": "step", "step": {"id": "a", "action": "demo.echo", "parameters": {}, "dependencies": []}}',
      '{"type": "step", "step": {"id": "b", "action": "demo.echo", "parameters": {}, "dependencies": ["a"]}}',
      '{"type": "finish"}',
      '{"type": "step", "step": {"id": "ignored"}}',
    ].join('\n');
    const r = ok(text);
    expect(r.format).toBe('ndjson');
    expect(r.plan.steps.map((s) => (s as { id: string }).id)).toEqual(['a', 'b']);
  });

  it('reads NDJSON bare step lines inside a fence with prose around', () => {
    const text =
      'Plan:\n```ndjson\n{"id": "a", "action": "demo.echo"}\n{"id": "b", "action": "demo.echo", "dependencies": ["a"]}\n```';
    expect(ok(text).plan.steps).toHaveLength(2);
  });

  it("accepts seed 001's subtasks and drops their runtime status fields later in validation", () => {
    const r = ok(
      JSON.stringify({ goal: 'g', subtasks: [{ id: 'search', description: 'Search', dependencies: [] }] }),
    );
    expect(r.format).toBe('subtasks');
    expect(r.plan).toEqual({ goal: 'g', steps: [{ id: 'search', description: 'Search', dependencies: [] }] });
  });

  it('unwraps {"plan": {...}} and resolves common step aliases (tool/args/depends_on, numeric ids)', () => {
    const r = ok(
      JSON.stringify({
        plan: {
          steps: [
            { id: 1, tool: 'demo.echo', args: { a: 1 } },
            { id: 2, tool: 'demo.echo', depends_on: [1] },
          ],
        },
      }),
    );
    expect(r.plan.steps).toEqual([
      { id: '1', action: 'demo.echo', parameters: { a: 1 } },
      { id: '2', action: 'demo.echo', dependencies: ['1'] },
    ]);
  });

  it('drops <think> blocks reasoning models put before the answer', () => {
    expect(ok(`<think>maybe {"steps": 1}</think>\n${JSON_PLAN}`).plan.steps).toHaveLength(2);
  });

  it('reads the sub-plans of hierarchical steps in any accepted shape', () => {
    const r = ok(
      JSON.stringify({ steps: [{ id: 'a', subplan: { subtasks: [{ id: 'x', tool: 'demo.echo' }] } }] }),
    );
    expect(r.plan.steps).toEqual([{ id: 'a', subplan: { steps: [{ id: 'x', action: 'demo.echo' }] } }]);
  });
});

describe('parse errors worded for the repair prompt', () => {
  it('says the answer was empty', () => {
    expect(err('   ')).toMatch(/empty.*"steps"/);
  });

  it('says no JSON was found in plain prose', () => {
    expect(err('I cannot help with that.')).toMatch(/No JSON found/);
  });

  it('quotes JSON.parse with line, column and the text near the mistake', () => {
    const message = err('{"steps": [{"id": "a" "action": "demo.echo"}]}');
    expect(message).toMatch(/^Invalid JSON: /);
    expect(message).toMatch(/line 1 column \d+/);
    expect(message).toContain('near `');
  });

  it('says the JSON is incomplete when the answer was cut off', () => {
    expect(err('{"steps": [{"id": "a", "action": "demo.ec')).toMatch(/incomplete.*cut off/);
  });

  it('names the keys of an object that has no steps', () => {
    expect(err('{"tasks": "none", "plan_name": "x"}')).toMatch(
      /no "steps" array \(its keys: "tasks", "plan_name"\)/,
    );
  });

  it('does not mistake a broken pretty-printed object for NDJSON', () => {
    const broken = `{\n  "steps": [\n    {"id": "a", "action": "demo.echo", "dependencies": []},\n    {"id": "b" "action": "x"}\n  ]\n}`;
    expect(err(broken)).toMatch(/Invalid JSON/);
  });
});

describe('lenient JSON reading', () => {
  it('leaves commas and slashes inside strings alone', () => {
    expect(stripCommentsAndTrailingCommas('{"a": "x,]", "b": "//c" ,}')).toBe('{"a": "x,]", "b": "//c" }');
  });

  it('reports the strict error when cleaning does not help', () => {
    const r = readJson('{a: 1}');
    expect(r.ok).toBe(false);
  });
});
