/**
 * A TEA template whose expression nests thousands of levels deep — a chain of 5,000 `or` — ran
 * @huggingface/jinja out of stack: the workflow was accepted and its step failed with "Maximum call
 * stack size exceeded" at line 1, which says nothing of what to change. It is refused when the
 * workflow is sent, naming the node, the field and the fix (plan/jinja-depth.ts).
 */
import { describe, expect, it } from 'vitest';
import { api, waitForRun } from './helpers';

const workflow = (expr: string) => `name: deep
nodes:
  - name: check
    uses: demo.echo
    with:
      hit: "{{ ${expr} }}"
`;

const chain = (n: number) => Array.from({ length: n }, (_, i) => `state.x == ${i}`).join(' or ');

describe('a template that nests too deeply', () => {
  it('a chain of 5,000 `or` terms is refused 422 invalid_plan naming the node, the field and what to change', async () => {
    const r = await api('POST', '/v1/runs', { format: 'tea-yaml', source: workflow(chain(5_000)) });
    expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(422);
    expect(r.body.error.code).toBe('invalid_plan');
    const text = JSON.stringify(r.body);
    expect(text).toContain(
      'node \\"check\\": the template in with.hit does not parse: the template nests too deeply',
    );
    expect(text).toContain('split it into smaller expressions');
    expect(text).not.toContain('Maximum call stack');
  });

  it('a chain of 100 terms still runs', async () => {
    const r = await api('POST', '/v1/runs', { format: 'tea-yaml', source: workflow(chain(100)), input: {} });
    expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(201);
    const run = await waitForRun(r.body.run_id as string);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(run.step_results.check).toEqual({ hit: false });
  });
});
