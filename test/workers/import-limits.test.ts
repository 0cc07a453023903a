/**
 * A TEA workflow past a limit is refused through the Worker with the code validation would give —
 * `too_many_steps` for more nodes than `max_steps`, counted before the workflow is parsed — and one
 * with more aliases than the importer resolves is refused naming the count, the limit and the line.
 */
import { describe, expect, it } from 'vitest';
import { MAX_ALIASES, MAX_TEA_SOURCE_BYTES } from '../../src/import/tea-limits';
import { MAX_PLAN_STEPS } from '../../src/plan/config';
import { api } from './helpers';

/** A workflow of `n` echo nodes; `extra` is appended (navigation, say). */
function workflow(n: number, extra = ''): string {
  let nodes = '';
  for (let i = 0; i < n; i++) {
    nodes += `  - name: n${i}\n    uses: demo.echo\n    with:\n      text: "{{ state.x }} {{ state.y | upper }}"\n`;
  }
  return `name: big\nnodes:\n${nodes}${extra}`;
}

const tooMany = (nodes: number, limit: number) =>
  `The workflow has ${nodes} nodes, each a step; the limit (max_steps) is ${limit}: raise config.max_steps (up to ${MAX_PLAN_STEPS}) or split the workflow`;

describe('a TEA workflow with more nodes than max_steps', () => {
  const source = workflow(10_000);

  it('POST /v1/runs is 422 invalid_plan with the too_many_steps finding: the count, the limit, how to raise it, the line', async () => {
    const r = await api('POST', '/v1/runs', { format: 'tea-yaml', source, input: { x: 1, y: 'a' } });
    expect(r.status).toBe(422);
    expect(r.body.error).toEqual({
      code: 'invalid_plan',
      message: `The plan has 1 finding: ${tooMany(10_000, 20)}`,
      details: { errors: [{ code: 'too_many_steps', message: tooMany(10_000, 20), line: 2 }] },
    });
  });

  it('POST /v1/plans/validate is 200 valid: false with the same finding, against the config it is given (far past it)', async () => {
    const r = await api('POST', '/v1/plans/validate', {
      format: 'tea-yaml',
      source,
      config: { max_steps: 4_999 },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      valid: false,
      errors: [{ code: 'too_many_steps', message: tooMany(10_000, 4_999), line: 2 }],
    });
  });

  it('one a little past max_steps is read whole: the refusal comes with its other findings', async () => {
    const source = workflow(21).replace('uses: demo.echo', 'uses: demo.nope');
    const r = await api('POST', '/v1/plans/validate', { format: 'tea-yaml', source });
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(false);
    expect(r.body.errors.map((e: { code: string }) => e.code).sort()).toEqual([
      'too_many_steps',
      'unknown_tool',
    ]);
  });

  it('one of exactly max_steps nodes is not refused', async () => {
    const r = await api('POST', '/v1/plans/validate', { format: 'tea-yaml', source: workflow(20) });
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(true);
    expect(r.body.plan.steps).toHaveLength(20);
  });

  it('with navigation only the nodes it reaches are steps: 30 nodes of which 2 run fit a limit of 20', async () => {
    const edges =
      'edges:\n  - { from: __start__, to: n0 }\n  - { from: n0, to: n1 }\n  - { from: n1, to: __end__ }\n';
    const r = await api('POST', '/v1/plans/validate', { format: 'tea-yaml', source: workflow(30, edges) });
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(true);
    expect(r.body.plan.steps.map((s: { id: string }) => s.id)).toEqual(['n0', 'n1']);
  });

  it('with navigation that reaches them all, validation counts them and refuses', async () => {
    const r = await api('POST', '/v1/plans/validate', {
      format: 'tea-yaml',
      source: workflow(30).replace('uses: demo.echo', 'uses: demo.echo\n    goto: n1'),
    });
    expect(r.status).toBe(200);
    expect(r.body.errors).toEqual([
      {
        code: 'too_many_steps',
        message:
          "The plan has 30 steps; the limit (max_steps) is 20 (a run's config.max_steps may be up to 100000)",
      },
    ]);
  });
});

describe('a TEA workflow larger than the YAML source limit', () => {
  // Navigation means its nodes cannot be counted before it is parsed: only the size bounds the work.
  const goto = (n: number) => {
    let nodes = '';
    for (let i = 0; i < n; i++) {
      const next = i + 1 < n ? `n${i + 1}` : '__end__';
      nodes += `  - name: n${i}\n    uses: demo.echo\n    goto: ${next}\n    with:\n      text: "{{ state.x }} {{ state.y | upper }}"\n`;
    }
    return `name: big\nnodes:\n${nodes}`;
  };
  const over = goto(12_000);
  const tooLarge = {
    code: 'payload_too_large',
    message: `The TEA workflow is ${over.length} bytes of YAML; the limit is ${MAX_TEA_SOURCE_BYTES} bytes (1 MiB), though a request may carry 5 MiB: split it into smaller workflows, or pass large values in the run's "input" instead of writing them into the workflow`,
    details: { max_bytes: MAX_TEA_SOURCE_BYTES, bytes: over.length },
  };

  it('POST /v1/runs and POST /v1/plans/validate are 413 payload_too_large, naming the size, the limit and what to do', async () => {
    expect(over.length).toBeGreaterThan(MAX_TEA_SOURCE_BYTES);
    const run = await api('POST', '/v1/runs', { format: 'tea-yaml', source: over });
    expect(run.status).toBe(413);
    expect(run.body.error).toEqual(tooLarge);
    const validated = await api('POST', '/v1/plans/validate', { format: 'tea-yaml', source: over });
    expect(validated.status).toBe(413);
    expect(validated.body.error).toEqual(tooLarge);
  });

  it('counts UTF-8 bytes, as the request does', async () => {
    const wide = `name: big\ndescription: "${'é'.repeat(MAX_TEA_SOURCE_BYTES / 2)}"\nnodes:\n  - name: n\n    uses: demo.echo\n`;
    expect(wide.length).toBeLessThan(MAX_TEA_SOURCE_BYTES);
    const r = await api('POST', '/v1/plans/validate', { format: 'tea-yaml', source: wide });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('payload_too_large');
  });

  it('one just under the limit is read', async () => {
    const under = goto(9_000);
    expect(under.length).toBeLessThan(MAX_TEA_SOURCE_BYTES);
    const r = await api('POST', '/v1/plans/validate', {
      format: 'tea-yaml',
      source: under,
      config: { max_steps: 10_000 },
    });
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(true);
  });
});

describe('a TEA workflow with many aliases', () => {
  /** `anchors` strings, each used `uses` times in one node's with:. */
  function aliased(anchors: number, uses: number): string {
    let vars = '';
    let lists = '';
    for (let a = 0; a < anchors; a++) {
      vars += `  v${a}: &v${a} "value ${a}"\n`;
      lists += `        - [${Array.from({ length: uses }, () => `*v${a}`).join(', ')}]\n`;
    }
    return `variables:\n${vars}nodes:\n  - name: n\n    uses: demo.echo\n    with:\n      text: t\n      lists:\n${lists}`;
  }

  it(`is refused past ${MAX_ALIASES} aliases, naming the count, the limit and the line of the first past it`, async () => {
    const source = aliased(21, 50);
    const r = await api('POST', '/v1/runs', { format: 'tea-yaml', source });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('invalid_plan');
    const lines = source.split('\n');
    const line = lines.findIndex((l) => l.includes('*v20')) + 1;
    expect(r.body.error.details.errors).toEqual([
      {
        code: 'yaml_syntax',
        message: `line ${line}: the workflow has 1050 aliases (*name); the limit is ${MAX_ALIASES}: write the repeated values out, or keep them once in variables: and use {{ variables.name }}`,
        line,
        column: lines[line - 1]!.indexOf('*v20') + 1,
      },
    ]);
  });

  it(`converts with ${MAX_ALIASES}, each alias standing for its anchor`, async () => {
    const r = await api('POST', '/v1/plans/validate', { format: 'tea-yaml', source: aliased(20, 50) });
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(true);
    const lists = r.body.plan.metadata.tea.params.n.lists as string[][];
    expect(lists).toEqual(Array.from({ length: 20 }, (_, a) => Array<string>(50).fill(`value ${a}`)));
  });
});

describe('a TEA workflow whose aliases write out larger than a request', () => {
  const big = 'x'.repeat(100_000);
  const uses = Array.from({ length: 99 }, () => '*big').join(', ');

  it('in with: is 422 naming the node, the line of the anchor and the limit (one 100 KB anchor used 99 times, not a 10 MB plan)', async () => {
    const source = `variables:\n  big: &big "${big}"\nnodes:\n  - name: n\n    uses: demo.echo\n    with:\n      text: t\n      copies: [${uses}]\n`;
    for (const path of ['/v1/runs', '/v1/plans/validate']) {
      const r = await api('POST', path, { format: 'tea-yaml', source });
      expect(r.status).toBe(422);
      expect(r.body.error.details.errors).toHaveLength(1);
      expect(r.body.error.details.errors[0]).toMatchObject({ code: 'yaml_syntax', line: 2 }); // the anchor's line;
      expect(r.body.error.message).toContain(
        'node "n": with its aliases (*name) written out, the workflow comes to more than a request carries (5 MiB)',
      );
    }
  });

  it('in variables: is 422 too', async () => {
    const source = `variables:\n  big: &big "${big}"\n  copies: [${uses}]\nnodes:\n  - name: n\n    uses: demo.echo\n    with: { text: t }\n`;
    const r = await api('POST', '/v1/plans/validate', { format: 'tea-yaml', source });
    expect(r.status).toBe(422);
    expect(r.body.error.details.errors[0]).toMatchObject({ code: 'yaml_syntax', line: 1 });
    expect(r.body.error.message).toContain('write the workflow out to more than 5242880 characters');
  });
});
