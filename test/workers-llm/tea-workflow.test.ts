import { afterEach, describe, expect, it, vi } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { RESEARCH_PLANNER } from '../unit/import-helpers';
import { api, events, waitForRun } from '../workers/helpers';

afterEach(() => {
  setLlmFetch(null);
  vi.unstubAllGlobals();
});

/** One scripted endpoint for the planner (setLlmFetch) and for llm.call steps (the global fetch). */
function scriptLlm(replies: string[]) {
  const llm = scriptedLlm(replies);
  setLlmFetch(llm.fetch);
  const real = globalThis.fetch;
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) =>
    new Request(input, init).url.startsWith('https://llm.test/') ? llm.fetch(input, init) : real(input, init),
  );
  return llm;
}

describe('seed 001’s Complete Workflow Example as a TEA import', () => {
  it('runs end to end: decompose, execute the subtasks as a child run, check status, synthesize', async () => {
    const subtasks = {
      steps: [
        {
          id: 'search',
          description: 'Search for sources on edge runtimes',
          action: 'llm.call',
          parameters: { prompt: 'Search for sources on edge runtimes' },
          dependencies: [],
        },
        {
          id: 'analyze',
          description: 'Analyze the sources',
          action: 'llm.call',
          parameters: { prompt: 'Analyze: {{ steps.search.output.content }}' },
          dependencies: ['search'],
        },
      ],
    };
    const llm = scriptLlm([
      JSON.stringify(subtasks),
      'Found 5 relevant sources',
      'Key findings: isolates start fast',
      'Summary: edge runtimes start fast.',
    ]);
    const r = await api('POST', '/v1/runs', {
      format: 'tea-yaml',
      source: RESEARCH_PLANNER,
      input: { user_goal: 'Research edge runtimes' },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const run = await waitForRun(r.body.run_id, undefined, 20_000);
    expect(run.status, JSON.stringify({ error: run.error, steps: run.step_statuses, results: run.step_results })).toBe('completed');
    // Seed 001 "State Variables": the planning actions set plan, subtask_results, plan_status,
    // replan_count at the top level of the state (their results are merged, as TEA does).
    expect(run.state.user_goal).toBe('Research edge runtimes');
    expect(run.state.plan).toMatchObject({ steps: [{ id: 'search' }, { id: 'analyze' }] });
    expect(run.state.subtask_results).toMatchObject({
      search: { content: 'Found 5 relevant sources' },
      analyze: { content: 'Key findings: isolates start fast' },
    });
    expect(run.state.plan_status).toMatchObject({ total: 2, completed: 2 });
    expect(run.state.replan_count).toBe(0);
    expect(run.state.subtask_count).toBe(2);
    // plan.status's result merged last: its counts and progress.
    expect(run.state).toMatchObject({ status: { total: 2, completed: 2 }, progress: 1, success: true });
    // llm.call keeps its answer under the node's name.
    expect(run.state.synthesize).toMatchObject({ content: 'Summary: edge runtimes start fast.' });
    // No per-node keys for the merged nodes.
    for (const node of ['plan_research', 'execute_research', 'check_completion'])
      expect(run.state).not.toHaveProperty(node);
    // The state replayed from the event log shows the same merged keys, and `?at=` the state then.
    const replayed = await api('GET', `/v1/runs/${run.run_id}/state`);
    expect(replayed.body.state).toEqual(run.state);
    const log = await events(run.run_id);
    const decomposed = log.find(
      (e) => e.event_type === 'ToolReturned' && e.payload.step_id === 'plan_research',
    )!;
    const early = await api('GET', `/v1/runs/${run.run_id}/state?at=${decomposed.seq}`);
    expect(Object.keys(early.body.state).sort()).toEqual([
      'plan',
      'plan_id',
      'planning_trace',
      'subtask_count',
      'success',
      'user_goal',
    ]);
    // The synthesis prompt got the goal and the subtask results as JSON (`| tojson`).
    const last = llm.sent.at(-1)!.body.messages.at(-1)!.content;
    expect(last).toContain('Goal: Research edge runtimes');
    expect(last).toContain('"content":"Found 5 relevant sources"');
    expect(llm.sent).toHaveLength(4);
  });
});
