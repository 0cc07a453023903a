/**
 * How `/mcp` bounds a run too big for one tool result (src/http/mcp-run-answer.ts): within the bound,
 * each step whole or not at all, failed and running steps first, long values and long change lists cut.
 */
import { describe, expect, it } from 'vitest';
import {
  boundedRun,
  MCP_CHANGES_SHOWN,
  MCP_RUN_CHARS,
  MCP_VALUE_CHARS,
  runSteps,
} from '../../src/http/mcp-run-answer';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A run of `n` completed steps with `text`-sized results; `status` overrides some steps' status. */
function run(n: number, text: number, status: Record<string, string> = {}): Json {
  const ids = Array.from({ length: n }, (_, i) => `s${i}`);
  const st = (id: string) => status[id] ?? 'completed';
  return {
    run_id: 'run_1',
    status: 'running',
    goal: 'g',
    plan: {
      id: 'p',
      version: 1,
      goal: 'g',
      steps: ids.map((id) => ({ id, action: 'demo.echo', parameters: {}, dependencies: [] })),
    },
    step_statuses: Object.fromEntries(ids.map((id) => [id, st(id)])),
    step_results: Object.fromEntries(
      ids.filter((id) => st(id) === 'completed').map((id) => [id, { t: 'x'.repeat(text) }]),
    ),
    steps: Object.fromEntries(ids.map((id) => [id, { status: st(id), attempts: 1, error: null }])),
    state: {},
    counts: { total: n },
    final_output: null,
    last_seq: 9,
    pending_approval: null,
  };
}

const size = (v: unknown) => JSON.stringify(v).length;
/** The run as /mcp answers it. */
const bounded = (r: Json): Json => boundedRun(r, size(r));

describe('a run at /mcp', () => {
  it('is itself while it fits', () => {
    const small = run(3, 10);
    expect(boundedRun(small, size(small))).toBe(small);
  });

  it('past the bound: within it, each step whole, failed and running steps first, the rest in plan order', () => {
    const big = run(2000, 100, { s1999: 'failed', s1500: 'running' });
    const answer = bounded(big);
    expect(size(answer)).toBeLessThanOrEqual(MCP_RUN_CHARS);
    const shown = Object.keys(answer.step_statuses);
    expect(shown.length).toBeGreaterThan(50);
    expect(shown).toContain('s1999');
    expect(shown).toContain('s1500');
    // The others from the start of the plan, and every map holding the same steps in plan order.
    expect(shown.slice(0, 3)).toEqual(['s0', 's1', 's2']);
    expect(shown.at(-1)).toBe('s1999');
    expect(answer.plan.steps.map((s: Json) => s.id)).toEqual(shown);
    expect(Object.keys(answer.steps)).toEqual(shown);
    expect(Object.keys(answer.step_results)).toEqual(shown.filter((id) => !['s1999', 's1500'].includes(id)));
    expect(answer.partial).toMatchObject({
      whole_chars: size(big),
      steps_total: 2000,
      steps_shown: shown.length,
    });
    expect(answer.counts).toEqual(big.counts);
  });

  it('leaves out a step too big to fit but goes on with smaller ones', () => {
    const big = run(40, 100);
    big.plan.steps[0].parameters = { p: 'z'.repeat(MCP_RUN_CHARS) };
    const answer = bounded(big);
    expect(Object.keys(answer.step_statuses)).not.toContain('s0');
    expect(Object.keys(answer.step_statuses)).toContain('s39');
    expect(size(answer)).toBeLessThanOrEqual(MCP_RUN_CHARS);
  });

  it('makes long values markers, with their size in UTF-8 bytes and where to read them', () => {
    const big = run(20, 10);
    big.step_results.s2 = { t: 'é'.repeat(MCP_VALUE_CHARS) };
    big.state = { notes: 'n'.repeat(MCP_VALUE_CHARS + 1), short: 1 };
    big.final_output = { all: 'f'.repeat(MCP_RUN_CHARS) };
    const answer = bounded(big);
    expect(answer.step_results.s2).toEqual({
      $elided: {
        bytes: new TextEncoder().encode(JSON.stringify(big.step_results.s2)).length,
        ref: 'steps.s2.output',
        href: '/v1/runs/run_1/values?ref=steps.s2.output',
      },
    });
    expect(answer.state.notes.$elided.ref).toBe('state.notes');
    expect(answer.state.short).toBe(1);
    expect(answer.final_output.$elided.ref).toBe('final_output');
    expect(answer.partial.values_elided).toBe(3);
    expect(answer.partial.message).toContain('get_run_value');
    // Every step fitted once the values were out: the note does not send the reader for steps.
    expect(answer.partial.steps_shown).toBe(20);
    expect(answer.partial.message).not.toContain('step_ids');
  });

  it('cuts an approval’s lists of changes, keeping their counts', () => {
    const big = run(1000, 50);
    const added = Array.from({ length: 1000 }, (_, i) => ({ step_id: `s${i}`, action: 'demo.echo' }));
    big.pending_approval = {
      plan_version: 2,
      changes: { counts: { added: 1000 }, added, changed: [], removed: [] },
    };
    const answer = bounded(big);
    expect(answer.pending_approval.changes.added).toHaveLength(MCP_CHANGES_SHOWN);
    expect(answer.pending_approval.changes.counts).toEqual({ added: 1000 });
    expect(answer.partial.message).toContain('pending_approval.changes');
    expect(size(answer)).toBeLessThanOrEqual(MCP_RUN_CHARS);
  });

  it('stays within the bound when the rest of the run is big: a long goal, many state variables', () => {
    const big = run(500, 100, { s499: 'failed' });
    big.goal = 'g'.repeat(200_000);
    big.plan.goal = big.goal;
    big.state = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, 'v'.repeat(20)]));
    const answer = bounded(big);
    expect(size(answer)).toBeLessThanOrEqual(MCP_RUN_CHARS);
    expect(answer.goal).toMatch(/^g{4000}… \(200,000 characters\)$/);
    expect(answer.plan.goal).toBe(answer.goal);
    expect(answer.state).toEqual({ $elided: expect.objectContaining({ ref: 'state' }) });
    expect(Object.keys(answer.step_statuses)).toContain('s499');
  });

  it('reads named steps, or names the ones the run does not have', () => {
    const big = run(500, 100);
    const picked = runSteps(big, ['s400', 's3']);
    expect(picked.ok && Object.keys(picked.run.step_statuses as Json)).toEqual(['s3', 's400']);
    expect(picked.ok && picked.run.partial).toBeUndefined();
    expect(runSteps(big, ['s3', 'x', 'y'])).toEqual({ ok: false, unknown: ['x', 'y'] });
  });
});
