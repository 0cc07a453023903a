import { afterEach, describe, expect, it, vi } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { RESEARCH_PLANNER } from '../unit/import-helpers';
import { MULTI_STEP_TASK, REFACTORING_LOOP, RESEARCH_PLANNING } from '../fixtures/tea-examples';
import { api, events, waitForRun } from '../workers/helpers';

afterEach(() => {
  setLlmFetch(null);
  vi.unstubAllGlobals();
});

type Reply = Parameters<typeof scriptedLlm>[0] extends (infer R)[] | Record<string, (infer R)[]> ? R : never;

/** One scripted endpoint for the planner (setLlmFetch) and for llm.call steps (the global fetch). */
function scriptLlm(replies: Reply[]) {
  const llm = scriptedLlm(replies);
  setLlmFetch(llm.fetch);
  const real = globalThis.fetch;
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) =>
    new Request(input, init).url.startsWith('https://llm.test/') ? llm.fetch(input, init) : real(input, init),
  );
  return llm;
}

/** What the scripted endpoint was last sent as the user's message of call `i`. */
function userMessage(llm: ReturnType<typeof scriptedLlm>, i: number): string {
  return String(llm.sent[i]!.body.messages.at(-1)!.content);
}

async function runTea(source: string, input: Record<string, unknown>, timeoutMs = 20_000) {
  const r = await api('POST', '/v1/runs', { format: 'tea-yaml', source, input });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return waitForRun(r.body.run_id as string, undefined, timeoutMs);
}

const chainPlan = (ids: string[]) =>
  JSON.stringify({
    subtasks: ids.map((id, i) => ({ id, description: `Do ${id}`, dependencies: i ? [ids[i - 1]] : [] })),
  });

describe('TEA workflows as TEA writes them, run end to end', () => {
  it('seed 001’s Complete Workflow Example: results merge into state as TEA merges them', async () => {
    const llm = scriptLlm([
      chainPlan(['search', 'analyze']),
      'Found 5 relevant sources',
      'Key findings: isolates start fast',
      'Summary: edge runtimes start fast.',
    ]);
    const run = await runTea(RESEARCH_PLANNER, { user_goal: 'Research edge runtimes' });
    expect(run.status).toBe('completed');
    // TEA: a node without output: merges the dict its action returns (llm.call's too).
    expect(run.state.subtask_results).toEqual({
      search: 'Found 5 relevant sources',
      analyze: 'Key findings: isolates start fast',
    });
    expect(run.state.plan.subtasks.map((s: { status: string }) => s.status)).toEqual([
      'completed',
      'completed',
    ]);
    expect(run.state).toMatchObject({
      plan_status: { total: 2, completed: 2 },
      replan_count: 0,
      status: { total: 2, completed: 2 },
      progress: 1,
      content: 'Summary: edge runtimes start fast.',
    });
    // The default subtask executor (no messages given) passes each dependency's result on, as TEA's does.
    expect(userMessage(llm, 2)).toBe("Subtask: Do analyze\nResult from 'search': Found 5 relevant sources");
    expect(userMessage(llm, 3)).toContain('"search": "Found 5 relevant sources"');
    const replayed = await api('GET', `/v1/runs/${run.run_id}/state`);
    expect(replayed.body.state).toEqual(run.state);
  });

  it('multi-step-task.yaml (verbatim): decompose → status → execute → status → compile', async () => {
    const llm = scriptLlm([
      chainPlan(['outline', 'draft']),
      'An outline with five sections',
      'A first draft',
      'The compiled post',
    ]);
    const run = await runTea(MULTI_STEP_TASK, { task: 'Write a post about REST APIs' });
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    // output: plan puts plan.decompose's whole result in state.plan; plan.status and plan.execute read it.
    expect(run.state.plan).toMatchObject({
      success: true,
      subtask_count: 2,
      plan: { subtasks: [{ id: 'outline' }, {}] },
    });
    // show_plan: include_completed false, include_details true → the pending subtasks, listed.
    expect(run.state.initial_status).toMatchObject({ status: { total: 2, pending: 2 }, progress: 0 });
    expect(run.state.initial_status.subtasks.map((s: { id: string }) => s.id)).toEqual(['outline', 'draft']);
    expect(run.state.task_results.subtask_results).toEqual({
      outline: 'An outline with five sections',
      draft: 'A first draft',
    });
    // {{ settings.llm.model }} = "${OPENAI_MODEL:-gpt-4}": the Worker has no OPENAI_MODEL, so gpt-4.
    expect(llm.sent.map((s) => s.body.model)).toEqual(['gpt-4', 'gpt-4', 'gpt-4', 'gpt-4']);
    // The subtask executor's Jinja: subtask.description, {% if %}, {% for … in ….items() %}, slicing.
    const second = userMessage(llm, 2);
    expect(second).toContain('Main task: Write a post about REST APIs');
    expect(second).toContain('Your subtask: Do draft');
    expect(second).toContain('[outline]: An outline with five sections...');
    expect(userMessage(llm, 1)).not.toContain('Context from completed subtasks');
    // compile_output iterates the execute result's keys, as the example is written.
    const compile = userMessage(llm, 3);
    expect(compile).toContain('Original task: Write a post about REST APIs');
    expect(compile).toContain('## subtask_results');
    expect(run.state.final_output).toMatchObject({ content: 'The compiled post' });
    // The event log shows the templates as written for settings (no value of the Worker's env).
    const log = await events(run.run_id as string);
    const invoked = log.filter((e) => e.event_type === 'ToolInvoked').map((e) => e.payload);
    expect(invoked.find((p) => p.step_id === 'compile_output').parameters.model).toBe(
      '${OPENAI_MODEL:-gpt-4}',
    );
  });

  it('research-planning.yaml (verbatim): hierarchical plan, retry a failed subtask, synthesize', async () => {
    const llm = scriptLlm([
      chainPlan(['gather', 'analyze']),
      { status: 500, error: 'upstream hiccup' },
      'Sources found',
      'Deep analysis',
      'A summary',
    ]);
    const run = await runTea(RESEARCH_PLANNING, { topic: 'edge computing' }, 30_000);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(run.state.research_results.subtask_results).toEqual({
      gather: 'Sources found',
      analyze: 'Deep analysis',
    });
    // on_subtask_failure: retry: the first attempt failed and was tried again.
    expect(llm.sent).toHaveLength(5);
    expect(userMessage(llm, 1)).toBe(userMessage(llm, 2));
    expect(userMessage(llm, 3)).toContain('Task: Do analyze');
    expect(userMessage(llm, 3)).toContain('"gather": "Sources found"');
    expect(run.state.final_summary).toMatchObject({ content: 'A summary' });
    expect(userMessage(llm, 4)).toContain('## subtask_results');
  });

  it('a refactoring workflow loops through plan.replan once, then validates and ends', async () => {
    const llm = scriptLlm([
      'Two modules share helpers',
      chainPlan(['step_1', 'step_2']),
      'Created the shared module',
      { status: 400, error: 'the model refused' },
      JSON.stringify({
        steps: [
          { id: 'step_1', description: 'Do step_1', dependencies: [] },
          { id: 'step_2b', description: 'Update the imports one file at a time', dependencies: ['step_1'] },
        ],
      }),
      'Imports updated',
      'All goals achieved',
    ]);
    const run = await runTea(
      REFACTORING_LOOP,
      { codebase_path: './src', refactoring_goal: 'Extract utils' },
      30_000,
    );
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(llm.sent).toHaveLength(7);
    expect(run.state.plan).toMatchObject({ preserved_subtasks: 1, new_subtasks: 1, success: true });
    expect(run.state.plan.plan.metadata.replan_count).toBe(1);
    // The second execute kept step_1 (completed) and ran only the new step.
    expect(run.state.refactoring_results.subtask_results).toEqual({
      step_1: 'Created the shared module',
      step_2b: 'Imports updated',
    });
    expect(userMessage(llm, 5)).toContain(
      'Refactoring step: Update the imports one file at a time (step_2b)',
    );
    expect(userMessage(llm, 5)).toContain('Result of step_1: Created the shared module');
    expect(run.state.validation_report).toMatchObject({ content: 'All goals achieved' });
    // The route, as recorded: each visit is an event, the second visit of execute_refactoring is visit 2.
    const log = await events(run.run_id as string);
    const route = log
      .filter((e) => e.event_type === 'NodeEntered')
      .map((e) => `${e.payload.node}#${e.payload.visit}`);
    expect(route).toEqual([
      'analyze_codebase#1',
      'create_refactoring_plan#1',
      'execute_refactoring#1',
      'handle_replan#1',
      'execute_refactoring#2',
      'validate_refactoring#1',
      '__end__#0',
    ]);
    const invoked = log.filter(
      (e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 'execute_refactoring',
    );
    expect(invoked.map((e) => e.payload.idempotency_key)).toEqual([
      `${run.run_id}:execute_refactoring`,
      `${run.run_id}:execute_refactoring:visit2`,
    ]);
    // Replay agrees with the live run, and /state?at= shows the state at the first visit's end.
    const replayed = await api('GET', `/v1/runs/${run.run_id}/state`);
    expect(replayed.body.state).toEqual(run.state);
    const firstReplan = log.find(
      (e) => e.event_type === 'NodeEntered' && e.payload.node === 'handle_replan',
    )!;
    const then = await api('GET', `/v1/runs/${run.run_id}/state?at=${firstReplan.seq}`);
    expect(then.body.state.refactoring_results.plan_status.skipped).toBe(1);
    expect(then.body.state.plan).toMatchObject({ subtask_count: 2 });
  });

  it('settings: ${VAR} takes the Worker’s var or secret as the tool is called; no value reaches the log', async () => {
    const llm = scriptLlm(['Hi there']);
    const run = await runTea(
      `settings:
  llm:
    model: "\${PLANNER_MODEL:-gpt-4}"
    api_key: "\${OPENAI_API_KEY}"
nodes:
  - name: hello
    action: llm.call
    with:
      messages:
        - role: user
          content: "Say hi (key set: {{ settings.llm.api_key | length > 0 }})"
`,
      {},
    );
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    // settings.llm fills llm.call's model (TEA does); PLANNER_MODEL is a var of this test Worker (scripted-1).
    expect(llm.sent[0]!.body.model).toBe('scripted-1');
    expect(run.state.content).toBe('Hi there');
    const log = await events(run.run_id as string);
    const invoked = log.find((e) => e.event_type === 'ToolInvoked')!;
    expect(invoked.payload.parameters.model).toBe('${PLANNER_MODEL:-gpt-4}');
    const text = JSON.stringify(log) + JSON.stringify(await api('GET', `/v1/runs/${run.run_id}`));
    expect(text).not.toContain('sk-test-scripted');
  });
});
