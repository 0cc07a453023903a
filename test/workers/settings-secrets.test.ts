import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { childRunId } from '../../src/engine/child-run';
import { api, events, startRun, waitForRun } from './helpers';

/**
 * `${NAME}` reads a Worker variable only for a TEA workflow's `settings`, and never one of the Worker's
 * own credentials: a plan comes from more hands than the operator's (an approval link's Modify, a
 * model), and the value would come back in the step's output or leave in an http.request body.
 */
describe('settings ${VAR}: what a plan can read from the Worker', () => {
  const secret = env.WEBHOOK_SECRET!;

  it('a step that names variables in its own `$env` gets none of them', async () => {
    const runId = await startRun({
      goal: 'read the Worker',
      steps: [
        {
          id: 'peek',
          action: 'demo.echo',
          parameters: {
            model: '${PLANNER_MODEL}',
            hook: '${WEBHOOK_SECRET}',
            $env: ['PLANNER_MODEL', 'WEBHOOK_SECRET'],
          },
        },
      ],
    });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.peek).toEqual({ model: '${PLANNER_MODEL}', hook: '${WEBHOOK_SECRET}' });
  });

  it('a TEA node that writes `$env` in its with: gets no more than its settings read', async () => {
    const r = await api('POST', '/v1/runs', {
      format: 'tea-yaml',
      source: `nodes:
  - name: peek
    uses: demo.echo
    with:
      hook: "\${WEBHOOK_SECRET}"
      $env: [WEBHOOK_SECRET]
`,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const run = await waitForRun(r.body.run_id as string);
    expect(run.step_results.peek).toEqual({ hook: '${WEBHOOK_SECRET}' });
  });

  it('settings that read the Worker’s own credentials get them as written; other variables as ever', async () => {
    const r = await api('POST', '/v1/runs', {
      format: 'tea-yaml',
      source: `settings:
  model: "\${PLANNER_MODEL}"
  hook: "\${WEBHOOK_SECRET}"
  token: "\${API_TOKEN:-none}"
nodes:
  - name: peek
    uses: demo.echo
    with: { model: "{{ settings.model }}", hook: "{{ settings.hook }}", token: "{{ settings.token }}" }
`,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const run = await waitForRun(r.body.run_id as string);
    expect(run.step_results.peek).toEqual({
      model: 'gpt-4o-mini', // wrangler.toml's PLANNER_MODEL
      hook: '${WEBHOOK_SECRET}',
      token: '${API_TOKEN:-none}',
    });
    expect(JSON.stringify(run)).not.toContain(secret);
  });

  it('a plan submitted with TEA metadata naming a credential does not read it either', async () => {
    const runId = await startRun({
      goal: 'read the Worker',
      steps: [{ id: 'peek', action: 'demo.echo', parameters: { hook: '${WEBHOOK_SECRET}' } }],
      metadata: { tea: { settings: { hook: '${WEBHOOK_SECRET}' }, env_names: ['WEBHOOK_SECRET'] } },
    });
    const run = await waitForRun(runId);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(run.step_results.peek).toEqual({ hook: '${WEBHOOK_SECRET}' });
  });

  it('a plan an approver modifies reads no variable the run was not created with', async () => {
    const runId = await startRun(
      { goal: 'approve me', steps: [{ id: 'peek', action: 'demo.echo', parameters: {} }] },
      { require_plan_approval: true },
    );
    await waitForRun(runId, (r) => r.status === 'awaiting_approval');
    const modified = await api('POST', `/v1/runs/${runId}/approval`, {
      decision: 'modify',
      plan: {
        steps: [{ id: 'peek', action: 'demo.echo', parameters: { model: '${PLANNER_MODEL}' } }],
        metadata: { tea: { settings: { model: '${PLANNER_MODEL}' }, env_names: ['PLANNER_MODEL'] } },
      },
    });
    expect(modified.status, JSON.stringify(modified.body)).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(run.step_results.peek).toEqual({ model: '${PLANNER_MODEL}' });
  });

  it('a child workflow a plain plan starts reads no variable its step could not', async () => {
    const runId = await startRun({
      goal: 'start a child workflow',
      steps: [
        {
          id: 'child',
          action: 'plan.execute',
          parameters: {
            plan: { steps: [{ id: 'peek', description: 'peek', dependencies: [] }] },
            subtask_executor: { action: 'demo.echo', with: { model: '${PLANNER_MODEL}' } },
            workflow: { settings: { model: '${PLANNER_MODEL}' } },
          },
        },
      ],
    });
    const run = await waitForRun(runId);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    const text = JSON.stringify(run.step_results.child);
    expect(text).toContain('${PLANNER_MODEL}');
    expect(text).not.toContain('gpt-4o-mini');
  });

  it('a child workflow plan.execute starts gets its settings as written, and its tools their values', async () => {
    const r = await api('POST', '/v1/runs', {
      format: 'tea-yaml',
      source: `settings:
  model: "\${PLANNER_MODEL}"
nodes:
  - name: go
    uses: plan.execute
    with:
      plan: { goal: g, steps: [{ id: peek, description: peek, dependencies: [] }] }
      subtask_executor: { action: demo.echo, with: { model: "{{ settings.model }}" } }
`,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const runId = r.body.run_id as string;
    const run = await waitForRun(runId);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(run.step_results.go).toMatchObject({ subtask_results: { peek: { model: 'gpt-4o-mini' } } });
    // The child's plan and the calls it logs keep the variable's name, never its value (the echo's
    // output has it: a tool that returns it is another matter).
    const child = await childRunId({ run_id: runId, step_id: 'go', attempt: 1 });
    const plan = await api('GET', `/v1/runs/${child}/plans/1`);
    expect(plan.status).toBe(200);
    expect(plan.body.metadata.tea.settings).toEqual({ model: '${PLANNER_MODEL}' });
    const logged = (await events(child)).filter((e) =>
      ['RunCreated', 'PlanAuthored', 'ToolInvoked'].includes(e.event_type),
    );
    expect(logged.map((e) => e.event_type)).toEqual(expect.arrayContaining(['PlanAuthored', 'ToolInvoked']));
    expect(JSON.stringify(logged)).not.toContain('gpt-4o-mini');
  });

  it('a child run agent.dispatch starts from a TEA node keeps ${VAR} in its goal as written', async () => {
    const r = await api('POST', '/v1/runs', {
      format: 'tea-yaml',
      source: `settings:
  x: "\${TEA_TEST_VAR}"
nodes:
  - name: go
    uses: agent.dispatch
    with: { goal: "{{ settings.x }}" }
`,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const runId = r.body.run_id as string;
    await waitForRun(runId);
    // Whatever the child's planner made of it, the value is in none of what the child stores.
    const child = await childRunId({ run_id: runId, step_id: 'go', attempt: 1 });
    const stored = await api('GET', `/v1/runs/${child}`);
    expect(stored.status).toBe(200);
    expect(stored.body.goal).toBe('${TEA_TEST_VAR}');
    expect(JSON.stringify(stored.body)).not.toContain('tea-var-7f3e9');
    expect(JSON.stringify(await events(child))).not.toContain('tea-var-7f3e9');
    expect(JSON.stringify(await events(runId))).not.toContain('tea-var-7f3e9');
  });

  it('a TEA child plan agent.dispatch starts keeps ${VAR} as written, and its tools get the values', async () => {
    const r = await api('POST', '/v1/runs', {
      format: 'tea-yaml',
      source: `settings:
  x: "\${TEA_TEST_VAR}"
nodes:
  - name: go
    uses: agent.dispatch
    with:
      goal: "{{ settings.x }}"
      plan:
        goal: "{{ settings.x }}"
        steps: [{ id: peek, action: demo.echo, dependencies: [] }]
        metadata:
          tea: { settings: { m: "{{ settings.x }}" }, params: { peek: { m: "{{ settings.x }}" } }, env_names: [TEA_TEST_VAR] }
`,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const runId = r.body.run_id as string;
    const run = await waitForRun(runId);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(run.step_results.go).toMatchObject({ subtask_results: { peek: { m: 'tea-var-7f3e9' } } });
    const child = await childRunId({ run_id: runId, step_id: 'go', attempt: 1 });
    const plan = await api('GET', `/v1/runs/${child}/plans/1`);
    expect(plan.status).toBe(200);
    expect(plan.body.goal).toBe('${TEA_TEST_VAR}');
    expect(plan.body.metadata.tea.params).toEqual({ peek: { m: '${TEA_TEST_VAR}' } });
    const stored = await api('GET', `/v1/runs/${child}`);
    expect(stored.body.goal).toBe('${TEA_TEST_VAR}');
    // The echo's output has the value (a tool that returns it is another matter); nothing else does.
    const logged = (await events(child)).filter((e) =>
      ['RunCreated', 'PlanAuthored', 'ToolInvoked'].includes(e.event_type),
    );
    expect(logged.map((e) => e.event_type)).toEqual(expect.arrayContaining(['PlanAuthored', 'ToolInvoked']));
    expect(JSON.stringify(logged)).not.toContain('tea-var-7f3e9');
    const parentInvoked = (await events(runId)).filter((e) => e.event_type === 'ToolInvoked');
    expect(JSON.stringify(parentInvoked)).not.toContain('tea-var-7f3e9');
  });

  it('planning actions keep ${VAR} as written in the goal and plan they return', async () => {
    const r = await api('POST', '/v1/runs', {
      format: 'tea-yaml',
      source: `settings:
  x: "\${TEA_TEST_VAR}"
nodes:
  - name: status
    uses: plan.status
    with:
      plan: { goal: "{{ settings.x }}", steps: [{ id: a, description: "{{ settings.x }}" }] }
      include_details: true
    output: status
  - name: decompose
    uses: plan.decompose
    with: { goal: "{{ settings.x }}" }
`,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const runId = r.body.run_id as string;
    const run = await waitForRun(runId);
    expect(run.state.status).toMatchObject({
      goal: '${TEA_TEST_VAR}',
      subtasks: [{ description: '${TEA_TEST_VAR}' }],
    });
    // The rule planner finds no plan for the goal; whatever it says names the goal as written.
    expect(JSON.stringify(run)).not.toContain('tea-var-7f3e9');
    expect(JSON.stringify(await events(runId))).not.toContain('tea-var-7f3e9');
  });
});
