/**
 * Empty, blank and deeply nested bodies on every POST route: a route that needs a body says so and
 * names what to send (never a 500 from parsing nothing), a route whose body is optional works
 * without one, and a body nested past the limit is refused before anything recurses into it.
 */
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { MAX_NESTING_DEPTH } from '../../src/nesting';
import { startRun, waitForRun, type Json } from './helpers';

const plan = { goal: 'wait', steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] };

async function post(path: string, body: string | undefined, headers: Record<string, string>) {
  const res = await exports.default.fetch(
    new Request(`http://edgeplan.test${path}`, { method: 'POST', headers, body }),
  );
  return { status: res.status, body: await res.json<Json>() };
}

/** The ways a client sends "nothing": no body, an empty one, only whitespace, with or without a type. */
const NOTHING: [string, string | undefined, Record<string, string>][] = [
  ['no body', undefined, {}],
  ['an empty JSON body', '', { 'Content-Type': 'application/json' }],
  ['a blank JSON body', ' \n\t ', { 'Content-Type': 'application/json' }],
  ['a blank body without a content type', '   ', {}],
];

/** Each route that needs a body, and a field its message must name. */
const NEEDS_BODY: [string, string][] = [
  ['/v1/runs', '"plan"'],
  ['/v1/plans', '"goal"'],
  ['/v1/plans/validate', '"plan"'],
  ['/v1/runs/run_abc/approval', '"decision"'],
  ['/v1/runs/run_abc/input', '"input"'],
  ['/v1/runs/run_abc/replan', '"reason"'],
  ['/v1/runs/run_abc/rollback', '"version"'],
];

describe('routes that need a body', () => {
  for (const [path, field] of NEEDS_BODY) {
    for (const [what, body, headers] of NOTHING) {
      it(`POST ${path} with ${what} is 400 invalid_request naming ${field}`, async () => {
        const r = await post(path, body, headers);
        expect(r.status).toBe(400);
        expect(r.body.error.code).toBe('invalid_request');
        expect(r.body.error.message).toMatch(/^This request needs a JSON body: send /);
        expect(r.body.error.message).toContain(field);
        expect(r.body.error.details).toEqual({ body: 'missing' });
      });
    }
  }
});

describe('routes whose body is optional', () => {
  for (const [what, body, headers] of NOTHING) {
    it(`cancel and retry accept ${what}`, async () => {
      const runId = await startRun({
        goal: 'wait',
        steps: [{ id: 'a', action: 'demo.sleep', parameters: { ms: 300 } }],
      });
      await waitForRun(runId, (r) => r.status === 'running');
      const cancelled = await post(`/v1/runs/${runId}/cancel`, body, headers);
      expect(cancelled).toMatchObject({ status: 200, body: { status: 'cancelled' } });
      const retried = await post(`/v1/runs/${runId}/retry`, body, headers);
      expect(retried.status).toBe(200);
    });
  }
});

/** `levels` arrays around a 1, as JSON text (JSON.stringify would recurse). */
const nestedArrays = (levels: number) => '['.repeat(levels) + '1' + ']'.repeat(levels);
const nestedObjects = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
const step = '{"id": "a", "action": "demo.echo", "parameters": {"x": 1}}';
const JSON_TYPE = { 'Content-Type': 'application/json' };

/** Bodies with a deep part where each route reads something recursive. */
const DEEP: [string, (deep: string) => string][] = [
  ['/v1/runs', (d) => `{"plan": {"steps": [${step}]}, "input": ${d}}`],
  ['/v1/runs', (d) => `{"plan": [{"_tool": "demo.echo", "x": ${d}}]}`],
  ['/v1/plans/validate', (d) => `{"plan": {"steps": [${step}], "x": ${d}}}`],
  ['/v1/plans', (d) => `{"goal": "echo hi", "input": ${d}}`],
  ['/v1/runs/run_abc/approval', (d) => `{"decision": "modify", "plan": {"steps": [${d}]}}`],
  ['/v1/runs/run_abc/approval?token=apv_bogus', (d) => `{"decision": "modify", "plan": ${d}}`],
  ['/v1/runs/run_abc/input', (d) => `{"input": ${d}}`],
  ['/v1/runs/run_abc/cancel', (d) => `{"reason": ${d}}`],
];

describe('deeply nested bodies', () => {
  for (const levels of [3_000, 10_000]) {
    for (const [path, body] of DEEP) {
      it(`POST ${path} nested ${levels} levels is 400 invalid_request naming the limit`, async () => {
        const text = body(levels % 2 === 0 ? nestedArrays(levels) : nestedObjects(levels));
        const r = await post(path, text, JSON_TYPE);
        expect(r.status).toBe(400);
        expect(r.body.error.code).toBe('invalid_request');
        expect(r.body.error.message).toMatch(
          new RegExp(
            `^Request body nests arrays and objects \\d+ levels deep; the limit is ${MAX_NESTING_DEPTH}$`,
          ),
        );
        expect(r.body.error.details.depth).toBeGreaterThan(levels);
      });
    }
  }

  it('counts nesting in objects as in arrays, and not brackets inside strings', async () => {
    const deep = await post('/v1/plans/validate', `{"plan": ${nestedObjects(MAX_NESTING_DEPTH)}}`, JSON_TYPE);
    expect(deep.body.error.details).toEqual({ depth: MAX_NESTING_DEPTH + 1, max_depth: MAX_NESTING_DEPTH });
    const inString = JSON.stringify({ plan: { steps: [], note: '['.repeat(10_000) } });
    expect((await post('/v1/plans/validate', inString, JSON_TYPE)).status).toBe(200);
  });

  it('runs a run whose input nests right up to the limit', async () => {
    const r = await post(
      '/v1/runs',
      `{"plan": {"steps": [${step}]}, "input": ${nestedArrays(MAX_NESTING_DEPTH - 1)}}`,
      JSON_TYPE,
    );
    expect(r.status).toBe(201);
    expect((await waitForRun(r.body.run_id as string)).status).toBe('completed');
  });
});

describe('deeply nested import sources', () => {
  const sources: [string, string][] = [
    ['tea-yaml', `nodes:\n  - name: a\n    uses: demo.echo\n    with:\n      x: ${nestedArrays(10_000)}\n`],
    [
      'tea-yaml',
      `nodes:\n  - name: a\n    uses: demo.echo\n    with:\n      x:\n        ${'- '.repeat(10_000)}1\n`,
    ],
    ['llmcompiler', `1. demo.echo(x=${nestedArrays(10_000)})\n2. join()`],
  ];
  for (const [format, source] of sources) {
    for (const path of ['/v1/plans/validate', '/v1/runs']) {
      it(`POST ${path} with a ${format} source nested 10,000 levels is 422 naming the line and the limit`, async () => {
        const r = await post(path, JSON.stringify({ format, source }), JSON_TYPE);
        expect(r.status).toBe(422);
        expect(r.body.error.code).toBe('invalid_plan');
        expect(r.body.error.message).toContain(`levels deep here; the limit is ${MAX_NESTING_DEPTH}`);
        expect(r.body.error.details.errors[0].line).toBeGreaterThan(0);
      });
    }
  }
});

describe('bodies the API cannot read', () => {
  for (const [what, body, headers] of NOTHING) {
    it(`POST /mcp with ${what} is a 400 JSON-RPC parse error, not a 500`, async () => {
      const r = await post('/mcp', body, { ...headers, Accept: 'application/json, text/event-stream' });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
      expect(r.body.error.message).toContain('send a JSON-RPC message');
    });
  }

  const MCP = { ...JSON_TYPE, Accept: 'application/json, text/event-stream' };
  it('an empty JSON-RPC batch to /mcp is one Invalid Request, not an empty 202', async () => {
    const r = await post('/mcp', '[]', MCP);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request: an empty batch' },
      id: null,
    });
  });

  const badParams: [unknown, string][] = [
    [{ name: 'get_run', arguments: [1] }, 'params.arguments must be an object (got an array)'],
    [{ name: 'get_run', arguments: 'x' }, 'params.arguments must be an object (got a string)'],
    [{ name: 5 }, 'params.name must be a tool name (got a number)'],
    [{}, 'params.name must be a tool name (got none)'],
    [undefined, 'params must be an object {name, arguments?} (got none)'],
  ];
  for (const [params, message] of badParams) {
    it(`MCP tools/call with params ${JSON.stringify(params)} is -32602 Invalid params in one line`, async () => {
      const r = await post(
        '/mcp',
        JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }),
        MCP,
      );
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32602, message: `Invalid params: ${message}` },
      });
    });
  }

  it('a compressed body is 415 naming its Content-Encoding, not a parse error echoing binary', async () => {
    const gz = new Response(
      new Blob([JSON.stringify({ plan })]).stream().pipeThrough(new CompressionStream('gzip')),
    );
    const res = await exports.default.fetch(
      new Request('http://edgeplan.test/v1/plans/validate', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: await gz.arrayBuffer(),
      }),
    );
    expect(res.status).toBe(415);
    const body = await res.json<Json>();
    expect(body.error).toMatchObject({
      code: 'unsupported_media_type',
      details: { content_encoding: 'gzip' },
    });
    expect(body.error.message).toContain('send this one uncompressed');
    // identity is no encoding at all
    const plain = await post('/v1/plans/validate', JSON.stringify({ plan }), {
      ...JSON_TYPE,
      'Content-Encoding': 'identity',
    });
    expect(plain.status).toBe(200);
  });
});

describe('bodies that are not UTF-8', () => {
  const validate = (body: BodyInit, contentType: string) =>
    exports.default.fetch(
      new Request('http://edgeplan.test/v1/plans/validate', {
        method: 'POST',
        headers: { 'Content-Type': contentType },
        body,
      }),
    );
  /** The plan with a non-ASCII goal, as ISO-8859-1 bytes: "é" is the single byte 0xE9. */
  const latin1 = () => {
    const text = JSON.stringify({ plan: { ...plan, goal: 'café' } });
    return Uint8Array.from(text, (ch) => ch.charCodeAt(0));
  };

  it('a charset other than UTF-8 is 415 naming it, instead of its characters read as UTF-8', async () => {
    for (const type of ['application/json; charset=latin1', 'application/json;charset="ISO-8859-1"']) {
      const res = await validate(latin1(), type);
      expect(res.status).toBe(415);
      const body = await res.json<Json>();
      expect(body.error.code).toBe('unsupported_media_type');
      expect(body.error.message).toContain('send this one as UTF-8');
      expect(['latin1', 'iso-8859-1']).toContain(body.error.details.charset);
    }
  });

  it('bytes that are not UTF-8 are 400 naming the first, instead of being replaced with U+FFFD', async () => {
    const bytes = latin1();
    const res = await validate(bytes, 'application/json');
    expect(res.status).toBe(400);
    const body = await res.json<Json>();
    expect(body.error.code).toBe('invalid_json');
    expect(body.error.message).toContain('not valid UTF-8');
    expect(body.error.details.position).toBe(bytes.indexOf(0xe9));
    // A truncated character at the very end is named too.
    const cut = new TextEncoder().encode('{"plan": "€"}').subarray(0, 12);
    const truncated = await validate(cut, 'application/json');
    expect(truncated.status).toBe(400);
    expect((await truncated.json<Json>()).error.details.position).toBe(10);
  });

  it('a lone surrogate escape is 400 invalid_json naming where, on every route, and starts no run', async () => {
    const before = await exports.default.fetch(new Request('http://edgeplan.test/v1/runs?limit=200'));
    const listed = (await before.json<Json>()).runs.length as number;
    const bodies: [string, string, string][] = [
      ['/v1/runs', `{"plan":{"goal":"g\\ud800","steps":[]}}`, 'plan.goal'],
      ['/v1/runs', `{"plan":${JSON.stringify(plan)},"input":{"k\\udc00":1}}`, 'input["k\\udc00"] (its key)'],
      [
        '/v1/plans/validate',
        `{"plan":{"goal":"g","steps":[{"id":"a","action":"demo.echo","parameters":{"m":["x","\\udfff\\ud800"]}}]}}`,
        'plan.steps[0].parameters.m[1]',
      ],
      ['/v1/runs/run_abc/input', '{"input":"\\ud83d"}', 'input'],
    ];
    for (const [path, body, where] of bodies) {
      const r = await post(path, body, JSON_TYPE);
      expect([path, r.status, r.body.error.code]).toEqual([path, 400, 'invalid_json']);
      expect(r.body.error.details).toEqual({ path: where });
      expect(r.body.error.message).toContain('lone UTF-16 surrogate');
    }
    const mcp = await post(
      '/mcp',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_run","arguments":{"run_id":"\\ud800"}}}',
      { ...JSON_TYPE, Accept: 'application/json, text/event-stream' },
    );
    expect(mcp.status).toBe(400);
    expect(mcp.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, data: { code: 'invalid_json' } },
    });
    const after = await exports.default.fetch(new Request('http://edgeplan.test/v1/runs?limit=200'));
    expect((await after.json<Json>()).runs.length).toBe(listed);
  });

  it('a surrogate pair, escaped or not, and an escaped backslash before "ud800" are text like any other', async () => {
    for (const goal of ['\\ud83d\\ude80', '🚀', '\\\\ud800']) {
      const r = await post(
        '/v1/plans/validate',
        `{"plan":{"goal":"${goal}","steps":[{"id":"a","action":"demo.echo"}]}}`,
        JSON_TYPE,
      );
      expect([goal, r.status]).toEqual([goal, 200]);
      expect(r.body.plan.goal).toBe(JSON.parse(`"${goal}"`));
    }
  });

  it('UTF-8 — with or without a charset or a byte-order mark — keeps its characters', async () => {
    const text = JSON.stringify({ plan: { ...plan, goal: 'café ✓ 🚀' } });
    for (const [body, type] of [
      [text, 'application/json'],
      [text, 'application/json; charset=UTF-8'],
      [text, 'application/json; charset="utf8"'],
      [new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]), 'application/json'],
    ] as [BodyInit, string][]) {
      const res = await validate(body, type);
      expect(res.status).toBe(200);
      expect((await res.json<Json>()).plan.goal).toBe('café ✓ 🚀');
    }
  });
});

describe('keys the API does not know', () => {
  const cases: [string, string, unknown, string][] = [
    [
      'a misspelt config key (which would have run the plan unapproved)',
      '/v1/runs',
      { plan, config: { require_plan_aproval: true } },
      'config: Unknown key "require_plan_aproval" (did you mean "require_plan_approval"?)',
    ],
    [
      'a misspelt top-level key',
      '/v1/runs',
      { plan, confg: {} },
      '(root): Unknown key "confg" (did you mean "config"?)',
    ],
    [
      'an unknown key with no near match',
      '/v1/runs',
      { plan, colour: 'red' },
      '(root): Unknown key "colour"; known keys: goal, plan, format, source, config, input',
    ],
    [
      'a config key with a word left out',
      '/v1/runs',
      { plan, config: { require_approval: true } },
      'config: Unknown key "require_approval" (did you mean "require_plan_approval"?)',
    ],
    [
      'a misspelt validation config key',
      '/v1/plans/validate',
      { plan, config: { require_dependences: true } },
      'config: Unknown key "require_dependences" (did you mean "require_dependencies"?)',
    ],
    [
      'a misspelt planning key',
      '/v1/plans',
      { goal: 'g', stratgy: 'flat' },
      'Unknown key "stratgy" (did you mean "strategy"?)',
    ],
    [
      'a misspelt cancel key',
      '/v1/runs/run_abc/cancel',
      { reasn: 'x' },
      'Unknown key "reasn" (did you mean "reason"?)',
    ],
    [
      'a misspelt retry key',
      '/v1/runs/run_abc/retry',
      { stepid: 'a' },
      'Unknown key "stepid" (did you mean "step_id"?)',
    ],
  ];
  for (const [what, path, body, message] of cases) {
    it(`${path}: ${what} is 400 invalid_request naming the key`, async () => {
      const r = await post(path, JSON.stringify(body), JSON_TYPE);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
      expect(r.body.error.message).toContain(message);
      expect(r.body.error.details.issues[0].code).toBe('unrecognized_keys');
    });
  }

  it('still takes the seed aliases of config keys (max_subtasks, parallel)', async () => {
    const r = await post(
      '/v1/runs',
      JSON.stringify({ plan, config: { max_subtasks: 5, parallel: true } }),
      JSON_TYPE,
    );
    expect(r.status).toBe(201);
    const run = await waitForRun(r.body.run_id as string);
    expect(run.status).toBe('completed');
  });

  it('caps max_steps, max_depth and a goal as POST /v1/plans does', async () => {
    const over: [unknown, string][] = [
      [{ plan, config: { max_steps: 100_001 } }, 'config.max_steps'],
      [{ plan, config: { max_steps: 1e12 } }, 'config.max_steps'],
      [{ plan, config: { max_depth: 11 } }, 'config.max_depth'],
      [{ goal: 'g'.repeat(10_001) }, 'goal'],
      [{ goal: '   ' }, 'goal'],
    ];
    for (const [body, path] of over) {
      const r = await post('/v1/runs', JSON.stringify(body), JSON_TYPE);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toContain(`${path}: `);
    }
  });
});

describe('keys a submitted plan does not know', () => {
  // Without a stated dependency on "a" (the misspelt key dropped), "b" would run at once.
  const misspelt = {
    goal: 'g',
    steps: [
      { id: 'a', action: 'demo.sleep', parameters: { ms: 50 } },
      { id: 'b', action: 'demo.echo', parameters: {}, dependecies: ['a'] },
    ],
  };
  const finding = {
    code: 'schema',
    message: 'steps[1]: Unknown key "dependecies" (did you mean "dependencies"?)',
    step_id: 'b',
    path: ['steps', 1],
  };

  it('POST /v1/runs is 422 invalid_plan naming the step and the key it meant', async () => {
    const r = await post('/v1/runs', JSON.stringify({ plan: misspelt }), JSON_TYPE);
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('invalid_plan');
    expect(r.body.error.message).toContain(finding.message);
    expect(r.body.error.details.errors).toEqual([finding]);
  });

  it("names edgeplan's key for another system's (depends_on, args, tool), which no spelling is near", async () => {
    const habit = {
      goal: 'g',
      steps: [
        { id: 'a', tool: 'demo.echo', args: { v: 1 } },
        { id: 'b', action: 'demo.echo', parameters: {}, depends_on: ['a'] },
      ],
    };
    const r = await post('/v1/runs', JSON.stringify({ plan: habit }), JSON_TYPE);
    expect(r.status).toBe(422);
    // (Step "a" without an action is an llm.call, which lacks its prompt: a third finding.)
    expect(r.body.error.details.errors.map((f: Json) => f.message)).toEqual(
      expect.arrayContaining([
        'steps[0]: Unknown keys "tool" (did you mean "action"?), "args" (did you mean "parameters"?)',
        'steps[1]: Unknown key "depends_on" (did you mean "dependencies"?)',
      ]),
    );
  });

  it('POST /v1/plans/validate reports it as a finding', async () => {
    const r = await post('/v1/plans/validate', JSON.stringify({ plan: misspelt }), JSON_TYPE);
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(false);
    expect(r.body.errors).toEqual([finding]);
  });

  it('a modified plan and an added step are refused the same way; the run still waits', async () => {
    const runId = await startRun(plan, { require_plan_approval: true });
    await waitForRun(runId, (r: Json) => r.status === 'awaiting_approval');
    const approval = `/v1/runs/${runId}/approval`;
    const modified = await post(approval, JSON.stringify({ decision: 'modify', plan: misspelt }), JSON_TYPE);
    expect(modified.status).toBe(422);
    expect(modified.body.error.details.errors).toEqual([finding]);
    const added = await post(
      approval,
      JSON.stringify({
        decision: 'modify',
        edits: [{ op: 'add_step', step: { id: 'b', action: 'demo.echo', dependecies: ['a'] } }],
      }),
      JSON_TYPE,
    );
    expect(added.status).toBe(400);
    expect(added.body.error.message).toContain('Unknown key "dependecies" (did you mean "dependencies"?)');
    const run = await waitForRun(runId, (r: Json) => r.status === 'awaiting_approval');
    expect(run.plan_version).toBe(1);
  });

  it('a plan read back from the API (with its inferred_dependencies) runs again as it is', async () => {
    const first = await startRun({
      goal: 'g',
      steps: [
        { id: 'a', action: 'demo.echo', parameters: { x: 1 } },
        {
          id: 'b',
          action: 'demo.echo',
          parameters: { x: 2 },
          dependencies: ['a'],
          retries: 1,
          timeout_ms: 1000,
        },
        { id: 'c', action: 'demo.echo', parameters: { x: '{{ steps.a.output }}' } },
      ],
    });
    await waitForRun(first);
    const readBack = await exports.default.fetch(
      new Request(`http://edgeplan.test/v1/runs/${first}/plans/1`),
    );
    const read = await readBack.json<Json>();
    expect(read.inferred_dependencies).toEqual({ c: ['a'] });
    const again = await post('/v1/runs', JSON.stringify({ plan: read }), JSON_TYPE);
    expect(again.status).toBe(201);
    expect((await waitForRun(again.body.run_id as string)).status).toBe('completed');
  });
});
