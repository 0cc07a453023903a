import { describe, expect, it } from 'vitest';
import { api, events, waitForRun } from './helpers';

async function start(source: string, input: Record<string, unknown> = {}) {
  return api('POST', '/v1/runs', { format: 'tea-yaml', source, input });
}

async function run(source: string, input: Record<string, unknown> = {}) {
  const r = await start(source, input);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return waitForRun(r.body.run_id as string);
}

async function route(runId: string): Promise<string[]> {
  const log = await events(runId);
  return log.filter((e) => e.event_type === 'NodeEntered').map((e) => `${e.payload.node}#${e.payload.visit}`);
}

const COUNTER = (max = '') => `name: counter
${max}
nodes:
  - name: count
    uses: demo.echo
    with:
      n: "{{ (state.n | default(0)) + 1 }}"
    goto:
      - if: "state.n < 3"
        to: count
      - to: done
  - name: never
    uses: demo.echo
    with: { x: 1 }
  - name: done
    uses: demo.echo
    with:
      total: "{{ state.n }}"
      note: "{% if state.n > 2 %}three{% else %}fewer{% endif %}"
`;

describe('TEA navigation as a graph run', () => {
  it('loops with a conditional goto, records every visit, skips what it never reached', async () => {
    const done = await run(COUNTER());
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done.state).toMatchObject({ n: 3, total: 3, note: 'three' });
    expect(await route(done.run_id as string)).toEqual([
      'count#1',
      'count#2',
      'count#3',
      'done#1',
      '__end__#0',
    ]);
    expect(done.step_statuses).toMatchObject({ count: 'completed', done: 'completed', never: 'skipped' });
    // Each visit is a new attempt of the node, with its own idempotency key after the first.
    const log = await events(done.run_id as string);
    const keys = log
      .filter((e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 'count')
      .map((e) => `${e.payload.attempt}:${String(e.payload.idempotency_key).split(':').slice(2).join(':')}`);
    expect(keys).toEqual(['1:', '2:visit2', '3:visit3']);
    // Replay agrees, and ?at= the second visit's entry shows the state after the first.
    const replayed = await api('GET', `/v1/runs/${done.run_id}/state`);
    expect(replayed.body.state).toEqual(done.state);
    const second = log.find((e) => e.event_type === 'NodeEntered' && e.payload.visit === 2)!;
    const then = await api('GET', `/v1/runs/${done.run_id}/state?at=${second.seq}`);
    expect(then.body.state).toEqual({ n: 1 });
  });

  it('fails a loop past max_iterations (default 25) with a clear error', async () => {
    const forever = COUNTER('max_iterations: 4').replace('if: "state.n < 3"', 'if: "True"');
    const failed = await run(forever);
    expect(failed.status).toBe('failed');
    expect(failed.error.code).toBe('max_iterations');
    expect(failed.error.message).toContain('Node "count" would run a 5th time, past max_iterations (4)');
    expect(await route(failed.run_id as string)).toEqual(['count#1', 'count#2', 'count#3', 'count#4']);
    const byDefault = await run(COUNTER().replace('if: "state.n < 3"', 'if: "True"'));
    expect(byDefault.error.code).toBe('max_iterations');
    expect(byDefault.state.n).toBe(25);
  });

  it('skips a node whose condition is false and goes on from it; conditional edges; __start__ and __end__', async () => {
    const source = `name: branches
nodes:
  - name: classify
    uses: demo.echo
    with: { score: "{{ state.score }}" }
  - name: high
    uses: demo.echo
    with: { path: high }
  - name: low
    uses: demo.echo
    with: { path: low }
  - name: audit
    condition: "{{ state.score > 100 }}"
    uses: demo.echo
    with: { audited: true }
  - name: finish
    uses: demo.echo
    with: { finished: "{{ state.path }}" }
edges:
  - from: __start__
    to: classify
  - from: classify
    to: high
    condition: "state.score >= 50"
  - from: classify
    to: low
    when: "state.score < 50"
  - from: high
    to: audit
  - from: low
    to: audit
  - from: audit
    to: finish
  - from: finish
    to: __end__
`;
    const high = await run(source, { score: 70 });
    expect(high.status, JSON.stringify(high.error)).toBe('completed');
    expect(high.state).toMatchObject({ path: 'high', finished: 'high' });
    expect(high.state).not.toHaveProperty('audited');
    expect(high.step_statuses).toMatchObject({ low: 'skipped', audit: 'skipped', finish: 'completed' });
    expect(await route(high.run_id as string)).toEqual([
      'classify#1',
      'high#1',
      'audit#1',
      'finish#1',
      '__end__#0',
    ]);
    const low = await run(source, { score: 500 - 480 });
    expect(low.state).toMatchObject({ path: 'low', finished: 'low' });
    const audited = await run(source, { score: 101 });
    expect(audited.state).toMatchObject({ audited: true, finished: 'high' });
  });

  it('fails when no navigation condition holds, naming the node', async () => {
    const failed = await run(`nodes:
  - name: a
    uses: demo.echo
    with: { v: 1 }
    goto:
      - if: "state.v > 5"
        to: b
  - name: b
    uses: demo.echo
    with: { v: 2 }
`);
    expect(failed.status).toBe('failed');
    expect(failed.error.code).toBe('no_route');
    expect(failed.error.message).toContain('After node "a" no navigation condition held (state.v > 5)');
  });

  it('a template error at run time names the node and the workflow line', async () => {
    const failed = await run(
      `name: broken
nodes:
  - name: first
    uses: demo.echo
    with: { items: [1, 2] }
  - name: second
    uses: demo.echo
    with:
      text: |
        fine {{ state.items | length }}
        also fine
        {{ state.items.nope() }}
`,
    );
    expect(failed.status).toBe('failed');
    expect(failed.step_results.second ?? null).toBeNull();
    const log = await events(failed.run_id as string);
    const returned = log.find((e) => e.event_type === 'ToolReturned' && e.payload.step_id === 'second')!;
    expect(returned.payload.error.code).toBe('template_error');
    expect(returned.payload.error.message).toMatch(
      /^Node "second": the template in with.text \(line 12\) failed: /,
    );
  });

  it('a template that loops too long or makes too much fails its node, and the runtime goes on', async () => {
    const failed = await run(`nodes:
  - name: loops
    uses: demo.echo
    with:
      text: "{% for a in range(1000) %}{% for b in range(1000) %}x{% endfor %}{% endfor %}"
`);
    expect(failed.status).toBe('failed');
    expect(failed.steps.loops.error).toMatchObject({ code: 'template_error' });
    expect(failed.steps.loops.error.message).toMatch(
      /^Node "loops": the template in with.text \(line 5\) failed: the template takes more than 250,000 steps to render/,
    );
    // Doubled 23 times: 80 Mi characters, made in a few steps.
    const doubled = await run(`nodes:
  - name: doubles
    uses: demo.echo
    with:
      text: "{% set s = 'xxxxxxxxxx' %}{% for i in range(23) %}{% set s = s ~ s %}{% endfor %}{{ s | length }}"
`);
    expect(doubled.steps.doubles.error).toMatchObject({ code: 'template_error' });
    expect(doubled.steps.doubles.error.message).toMatch(/makes more than 64 Mi characters/);
    // One filter call that would make a 500 MB line: refused before it is made, under workerd as in Node.
    const wide = await run(`nodes:
  - name: wide
    uses: demo.echo
    with:
      text: "{{ 'a\\nb' | indent(500000000) }}"
`);
    expect(wide.steps.wide.error).toMatchObject({ code: 'template_error' });
    expect(wide.steps.wide.error.message).toMatch(
      /one operation of the template would make 500,000,000 characters/,
    );
    // One call that would make 20 million values of one text (2 GB in Node): refused before it does.
    const pieces = await run(`nodes:
  - name: pieces
    uses: demo.echo
    with:
      text: "{{ ('a\\nb' | indent(20000000)).split(' ') | length }}"
`);
    expect(pieces.steps.pieces.error).toMatchObject({ code: 'template_error' });
    expect(pieces.steps.pieces.error.message).toMatch(
      /one operation of the template would cut a text into more than [\d,]+ pieces/,
    );
    const fine = await run(`nodes:
  - name: fine
    uses: demo.echo
    with:
      text: "{% for i in range(3) %}{{ i }}{% endfor %}"
`);
    expect(fine.step_results.fine).toEqual({ text: '012' });
  });

  it('bounds a loop with an empty body, and a node whose templates share out the work, as one render', async () => {
    // Nothing in the body: no statement is evaluated, only the block, a million times (1.4 s a template).
    const empty = await run(`nodes:
  - name: empty
    uses: demo.echo
    with:
      text: "{% for a in range(1000) %}{% for b in range(1000) %}{% endfor %}{% endfor %}"
`);
    expect(empty.steps.empty.error).toMatchObject({ code: 'template_error' });
    expect(empty.steps.empty.error.message).toMatch(/takes more than 250,000 steps to render/);
    // Each template alone is under the bound; a node's with: renders as a whole, so together they are not.
    const loop = '{% for a in range(300) %}{% for b in range(300) %}x{% endfor %}{% endfor %}';
    const shared = await run(`nodes:
  - name: shared
    uses: demo.echo
    with:
      a: "${loop}"
      b: "${loop}"
      c: "${loop}"
`);
    expect(shared.steps.shared.error).toMatchObject({ code: 'template_error' });
    expect(shared.steps.shared.error.message).toMatch(
      /^Node "shared": the template in with.b \(line 6\) failed: the template takes more than 250,000 steps/,
    );
    const alone = await run(`nodes:
  - name: alone
    uses: demo.echo
    with:
      a: "${loop}"
`);
    expect(alone.step_results.alone.a).toHaveLength(90_000);
  });

  it('refuses at import what cannot run, with the line and the feature named', async () => {
    const inline = await start(`nodes:
  - name: ok
    uses: demo.echo
  - name: py
    run: |
      return {"x": 1}
`);
    expect(inline.status).toBe(422);
    expect(inline.body.error.details.errors[0]).toMatchObject({ code: 'unsupported_node', line: 5 });
    expect(inline.body.error.details.errors[0].message).toContain(
      'inline code (run:, Python, Lua or Prolog)',
    );
    const syntax = await start(`nodes:
  - name: a
    uses: demo.echo
    with:
      text: |
        line one
        {{ state.x ( }}
`);
    expect(syntax.status).toBe(422);
    expect(syntax.body.error.details.errors[0]).toMatchObject({ code: 'template_error', line: 7 });
    const loop = await start(`nodes:
  - name: a
    uses: demo.echo
    goto: a
`);
    expect(loop.body.error.details.errors[0]).toMatchObject({ code: 'navigation_loop', line: 4 });
    const parallel = await start(`nodes:
  - name: a
    uses: demo.echo
  - name: b
    uses: demo.echo
edges:
  - from: a
    to: b
    parallel: true
`);
    expect(parallel.body.error.details.errors[0]).toMatchObject({ code: 'unsupported_navigation', line: 7 });
  });

  it('checks the input against state_schema', async () => {
    const r = await start(
      `state_schema:
  topic: str
  count: int
nodes:
  - name: a
    uses: demo.echo
    with: { t: "{{ state.topic }}" }
`,
      { topic: 3, count: 2 },
    );
    expect(r.status).toBe(422);
    expect(r.body.error.details.errors).toEqual([
      {
        code: 'state_schema',
        line: 2,
        message:
          'line 2: input: state.topic should be str (state_schema) but is a number — send it as the string "3" (on the command line: --input topic=\'"3"\')',
      },
    ]);
  });

  it('settings and variables render into templates; ${VAR:-default} takes the default when the Worker has none', async () => {
    const done = await run(`settings:
  greeting: "\${TEA_GREETING_UNSET:-hello}"
variables:
  who: world
nodes:
  - name: a
    uses: demo.echo
    with:
      text: "{{ settings.greeting }}"
      to: "{{ variables.who | upper }}"
`);
    expect(done.status).toBe('completed');
    expect(done.state).toMatchObject({ text: 'hello', to: 'WORLD' });
    const log = await events(done.run_id as string);
    const invoked = log.find((e) => e.event_type === 'ToolInvoked')!;
    expect(invoked.payload.parameters.text).toBe('${TEA_GREETING_UNSET:-hello}');
  });

  it('planning actions take seed 001 plan data (subtasks with status and result) and give the seed’s errors', async () => {
    const plan = {
      goal: 'Ship it',
      subtasks: [
        { id: 'a', description: 'first', dependencies: [], status: 'completed', result: 'done a' },
        { id: 'b', description: 'second', dependencies: ['a'], status: 'pending' },
        { id: 'c', description: 'third', dependencies: ['b'], status: 'failed' },
      ],
    };
    const done = await run(
      `nodes:
  - name: brief
    uses: plan.status
    output: brief
  - name: open
    uses: plan.status
    with: { include_details: true, include_completed: false }
    output: open
  - name: all
    uses: plan.status
    with: { include_details: true }
    output: all
`,
      { plan },
    );
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done.state.brief).toEqual({
      status: { total: 3, pending: 1, in_progress: 0, completed: 1, failed: 1, skipped: 0 },
      progress: 1 / 3,
      plan_id: null,
      goal: 'Ship it',
      success: true,
    });
    expect(done.state.open.subtasks.map((s: { id: string }) => s.id)).toEqual(['b', 'c']);
    expect(done.state.all.subtasks.map((s: { id: string; result: unknown }) => [s.id, s.result])).toEqual([
      ['a', 'done a'],
      ['b', null],
      ['c', null],
    ]);
    const noPlan = await run(`nodes:
  - name: go
    uses: plan.execute
`);
    expect(noPlan.status).toBe('failed');
    const log = await events(noPlan.run_id as string);
    const returned = log.find((e) => e.event_type === 'ToolReturned')!;
    expect(returned.payload.error.message).toBe(
      'No plan provided. Use plan.decompose first or provide plan parameter.',
    );
    const noReplan = await run(`nodes:
  - name: again
    uses: plan.replan
`);
    const log2 = await events(noReplan.run_id as string);
    expect(log2.find((e) => e.event_type === 'ToolReturned')!.payload.error.message).toBe(
      'No plan to replan',
    );
  });

  it('output: with a mapping renders each key from result, and a result that is no dict merges as {result}', async () => {
    const done = await run(`nodes:
  - name: fetch
    uses: demo.echo
    with: { title: "a title", body: "text" }
    output:
      headline: "{{ result.title | upper }}"
      size: "{{ result.body | length }}"
  - name: plain
    uses: demo.sleep
    with: { ms: 1, value: 42 }
`);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done.state).toEqual({ headline: 'A TITLE', size: 4, result: 42 });
  });
});
