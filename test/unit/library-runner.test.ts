import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { RunEvent } from '../../src/engine/events';
import type { PlanProvider } from '../../src/engine/plan-provider';
import { defineTool } from '../../src/executor/registry';
import { LocalRunner } from '../../src/library/local-runner';
import { PlanningPattern } from '../../src/library/planning-pattern';
import { planJson, scriptedLlm } from './planner-helpers';
import { ask, echo, fail, gateTool, scriptedPlanner, step } from './library-helpers';

describe('LocalRunner', () => {
  it('streams the backlog and then live events to an async iterator, ending when the run settles', async () => {
    const runner = new LocalRunner({ tools: [echo] });
    runner.start({ plan: { steps: [step('a', 't.echo'), step('b', 't.echo', {}, ['a'])] } });
    const types: string[] = [];
    for await (const e of runner) types.push(e.event_type);
    expect(types).toEqual(runner.events.map((e) => e.event_type));
    expect(types.at(-1)).toBe('RunTerminated');
    expect(runner.snapshot().status).toBe('completed');
  });

  it('tells listeners about every event as it is recorded', async () => {
    const runner = new LocalRunner({ tools: [echo] });
    const heard: RunEvent[] = [];
    runner.subscribe((e) => heard.push(e));
    runner.start({ plan: { steps: [step('a', 't.echo')] } });
    await runner.done();
    expect(heard).toEqual(runner.events);
  });

  it('runs a submitted plan whose steps leave their dependencies to their references, as the API does', async () => {
    const runner = new LocalRunner({ tools: [echo] });
    runner.start({
      plan: {
        goal: 'demo',
        steps: [
          { id: 'a', action: 't.echo', parameters: { msg: 'hello' } },
          { id: 'b', action: 't.echo', parameters: { msg: '{{ steps.a.output.msg }}' } },
        ],
      },
    });
    const end = await runner.done();
    expect(end).toMatchObject({ status: 'completed', final_output: { msg: 'hello' } });
  });

  it('refuses a step without a dependencies list only when require_dependencies is set', () => {
    const runner = new LocalRunner({ tools: [echo] });
    expect(() =>
      runner.start({
        plan: { steps: [{ id: 'a', action: 't.echo', parameters: {} }] },
        config: { require_dependencies: true },
      }),
    ).toThrow(/missing_dependencies/);
  });

  it('refuses a goal beside a plan whose own goal differs, as the API does, and names the run by one that agrees', async () => {
    const plan = { goal: 'Translate the notes', steps: [step('a', 't.echo')] };
    const runner = new LocalRunner({ tools: [echo] });
    expect(() => runner.start({ goal: 'Summarise the notes', plan })).toThrow(
      expect.objectContaining({
        code: 'invalid_request',
        message: expect.stringContaining(
          '"goal" ("Summarise the notes") and the plan\'s own "goal" ("Translate the notes") differ',
        ),
      }),
    );
    runner.start({ goal: 'Translate the notes', plan });
    expect(await runner.done()).toMatchObject({ status: 'completed' });
    expect(runner.snapshot().goal).toBe('Translate the notes');
  });

  it('names the run by the plan’s goal when the goal beside it is blank, not by the blank', async () => {
    const plan = { goal: 'Translate the notes', steps: [step('a', 't.echo')] };
    const runner = new LocalRunner({ tools: [echo] });
    runner.start({ goal: ' ', plan });
    expect(await runner.done()).toMatchObject({ status: 'completed' });
    expect(runner.snapshot().goal).toBe('Translate the notes');
  });

  it('plans a goal with the Planner it was given, through the machine’s plan command', async () => {
    const { planner, calls } = scriptedPlanner([step('a', 't.echo', { hello: 'world' })]);
    const runner = new LocalRunner({ tools: [echo], planner });
    runner.start({ goal: 'say hello', config: { max_steps: 5 } });
    const end = await runner.done();
    expect(end).toMatchObject({ status: 'completed', final_output: { hello: 'world' } });
    expect(calls[0]).toMatchObject({ goal: 'say hello', limits: { max_steps: 5 } });
    expect(runner.events.slice(0, 2).map((e) => e.event_type)).toEqual(['RunCreated', 'PlanAuthored']);
  });

  it('fails a goal run clearly when it has no planner', async () => {
    const runner = new LocalRunner({ tools: [echo] });
    runner.start({ goal: 'anything' });
    const end = await runner.done();
    expect(end.status).toBe('failed');
    expect(end.error).toMatchObject({
      code: 'planning_unavailable',
      message: expect.stringContaining('no planner'),
    });
  });

  it('cancel aborts the attempts in flight', async () => {
    const gate = gateTool();
    const runner = new LocalRunner({ tools: [gate.tool] });
    runner.start({ plan: { steps: [step('a', 't.gate', { id: 'a' })] } });
    await gate.until(1);
    expect(runner.cancel('enough')).toBeUndefined();
    const end = await runner.done();
    expect(end.status).toBe('cancelled');
    expect(gate.running).toBe(0);
    expect(runner.cancel()).toMatchObject({ code: 'run_finished' });
  });

  it('cancel aborts the planning in flight: done() does not wait for the model', async () => {
    const asked: AbortSignal[] = [];
    // A planner whose model takes as long as it is let: it answers only once its request is aborted.
    const slow = (signal: AbortSignal | undefined) =>
      new Promise<never>((_, reject) => {
        if (signal) asked.push(signal);
        signal?.addEventListener('abort', () => reject(signal.reason as Error));
      });
    const planner: PlanProvider = { draft: (req) => slow(req.signal), revise: (req) => slow(req.signal) };
    const runner = new LocalRunner({ tools: [echo], planner });
    runner.start({ goal: 'plan slowly' });
    expect(runner.state.status).toBe('planning');
    expect(runner.cancel('enough')).toBeUndefined();
    const end = await runner.done();
    expect(end.status).toBe('cancelled');
    expect(asked).toHaveLength(1);
    expect(asked[0]?.aborted).toBe(true);
  });

  it('does not wait for side work of a run that ended otherwise: an approval hook that never answers, past the deadline', async () => {
    let asked = 0;
    const runner = new LocalRunner({
      tools: [echo],
      hooks: {
        approve: () => {
          asked += 1;
          return new Promise<boolean>(() => {}); // the approver never answers
        },
      },
    });
    runner.start({
      plan: { steps: [step('a', 't.echo')] },
      config: { require_plan_approval: true, approval: { timeout_s: 0.05 } },
    });
    const end = await runner.done();
    expect(asked).toBe(1);
    // The deadline's default_action (reject) ended it; the hook still pending did not hold done().
    expect(end.status).not.toBe('awaiting_approval');
    expect(end.step_results).toEqual({});
  });

  it('waits for approval until approve() when no hook decides', async () => {
    const runner = new LocalRunner({ tools: [echo] });
    runner.start({ plan: { steps: [step('a', 't.echo')] }, config: { require_plan_approval: true } });
    expect(runner.state.status).toBe('awaiting_approval');
    runner.approve(true, 'looks fine');
    expect((await runner.done()).status).toBe('completed');
  });

  it('retry() re-runs a failed run from its failed step, keeping completed work', async () => {
    let attempts = 0;
    const once = defineTool({
      name: 't.once',
      description: 'fails the first call',
      version: '1',
      input: z.object({}),
      idempotent: true,
      deterministic: false,
      run: () => (++attempts === 1 ? Promise.reject(new Error('first call fails')) : Promise.resolve('ok')),
    });
    const runner = new LocalRunner({ tools: [echo, once] });
    runner.start({
      plan: { steps: [step('a', 't.echo'), step('b', 't.once', {}, ['a'])] },
      config: { retry_failed_steps: 0 },
    });
    expect((await runner.done()).status).toBe('failed');

    expect(runner.retry()).toBeUndefined();
    const end = await runner.done();
    expect(end.status).toBe('completed');
    expect(
      runner.events.filter((e) => e.event_type === 'ToolInvoked').map((e) => e.references.step_id),
    ).toEqual(['a', 'b', 'b']);
  });

  it('refuses a bad run config as invalid_request naming the setting, as POST /v1/runs does', () => {
    const runner = new LocalRunner({ tools: [echo] });
    const start = () =>
      runner.start({
        plan: { steps: [step('a', 't.echo')] },
        // A caller without types (plain JS, a config read from a file) can send a flag here.
        config: { retry_failed_steps: true, max_parallel: 0 } as unknown as { retry_failed_steps: number },
      });
    expect(start).toThrow(
      expect.objectContaining({
        name: 'EdgeplanError',
        code: 'invalid_request',
        message:
          'Invalid run config: max_parallel: must be at least 1; ' +
          'retry_failed_steps: must be a number, not a boolean',
      }),
    );
    // Nothing started: a good config starts the runner after all.
    runner.start({ plan: { steps: [step('a', 't.echo')] } });
  });

  it('refuses at start() a plan whose {{ input.… }} its tool cannot take, as POST /v1/runs does', () => {
    const count = defineTool({
      name: 't.count',
      description: 'takes a number',
      version: '1',
      input: z.object({ n: z.number() }),
      idempotent: true,
      deterministic: true,
      run: ({ n }) => Promise.resolve(n),
    });
    const plan = { steps: [step('a', 't.count', { n: '{{ input.n }}' })] };
    const runner = new LocalRunner({ tools: [count] });
    expect(() => runner.start({ plan, input: { n: '3' } })).toThrow(
      expect.objectContaining({
        code: 'invalid_plan',
        message: expect.stringContaining(
          "{{ input.n }} is a string but parameters.n of tool t.count expects a number (as the run's input gives it)",
        ) as string,
      }),
    );
    runner.start({ plan, input: { n: 3 } });
  });

  it('a step waiting for a person (human.input) completes with the answer', async () => {
    const requests: unknown[] = [];
    const runner = new LocalRunner({
      tools: [ask, echo],
      hooks: {
        inputRequested: (r) => {
          requests.push(r);
          return { colour: 'blue' };
        },
      },
    });
    runner.start({
      plan: {
        steps: [
          step('q', 't.ask', { question: 'Colour?' }),
          step('use', 't.echo', { c: '{{ steps.q.output.colour }}' }, ['q']),
        ],
      },
    });
    const end = await runner.done();
    expect(requests).toEqual([{ reason: 'Colour?', step_id: 'q' }]);
    expect(end).toMatchObject({ status: 'completed', final_output: { c: 'blue' } });
  });

  it('provideInput with a step id answers that question once; a second answer is refused', async () => {
    const runner = new LocalRunner({ tools: [ask, echo] });
    runner.start({
      plan: { steps: [step('q', 't.ask', { question: 'Who?' }), step('then', 't.echo', {}, ['q'])] },
    });
    await vi.waitFor(() => expect(runner.snapshot().status).toBe('awaiting_input'));
    expect(runner.provideInput('x', 'nope')).toMatchObject({ code: 'unknown_step' });
    expect(runner.provideInput('alice', 'q')).toBeUndefined();
    expect(runner.provideInput('bob', 'q')).toMatchObject({
      code: 'conflict',
      details: { reason: 'input_not_awaited', step_id: 'q' },
    });
    const end = await runner.done();
    expect(end.status).toBe('completed');
    expect(runner.snapshot().step_results.q).toBe('alice');
    expect(runner.events.filter((e) => e.event_type === 'InputReceived')).toHaveLength(1);
  });

  it('a step with a sub-plan is done when its sub-plan is, with the child run’s rolled-up result', async () => {
    const runner = new LocalRunner({ tools: [echo] });
    runner.start({
      plan: {
        steps: [
          {
            ...step('research', 't.echo'),
            subplan: {
              steps: [
                step('s1', 't.echo', { n: 1 }),
                step('s2', 't.echo', { got: '{{ steps.s1.output.n }}' }, ['s1']),
              ],
            },
          },
          step('write', 't.echo', { notes: '{{ steps.research.output.final_output.got }}' }, ['research']),
        ],
      },
      config: { max_depth: 2 },
    });
    const end = await runner.done();
    expect(end).toMatchObject({ status: 'completed', final_output: { notes: 1 } });
  });

  it('a sub-plan is not held to the parent’s step_timeout: its step records agent.dispatch with a time limit of its own', async () => {
    const nap = defineTool({
      name: 't.nap',
      description: 'sleeps 30 ms',
      version: '1',
      input: z.object({}),
      idempotent: true,
      deterministic: true,
      run: () => new Promise((resolve) => setTimeout(() => resolve('rested'), 30)),
    });
    const runner = new LocalRunner({ tools: [echo, nap] });
    runner.start({
      plan: {
        steps: [
          {
            ...step('outer', 't.echo'),
            subplan: { steps: [{ ...step('inner', 't.nap'), timeout_ms: 1000 }] },
          },
        ],
      },
      config: { step_timeout: 0.01, max_depth: 1 },
    });
    const end = await runner.done();
    expect(end).toMatchObject({ status: 'completed', final_output: { final_output: 'rested' } });
    const invoked = runner.events.find((e) => e.event_type === 'ToolInvoked');
    expect(invoked?.event_type === 'ToolInvoked' && invoked.payload.tool).toBe('agent.dispatch');
  });

  it('refuses an invalid plan before anything is recorded', () => {
    const runner = new LocalRunner({ tools: [echo, fail] });
    expect(() => runner.start({ plan: { steps: [step('a', 't.echo', {}, ['a'])] } })).toThrow(
      /Cycle detected: a -> a/,
    );
    expect(() => runner.snapshot()).toThrow(/not been started/);
  });
});

describe('planning through the LLM pipeline in process', () => {
  it('sends the agent’s system prompt and the pattern’s planning prompt to the model, and counts planning tokens', async () => {
    const llm = scriptedLlm([
      {
        content: planJson([
          { id: 'a', description: 'echo', action: 't.echo', parameters: { v: 1 }, dependencies: [] },
        ]),
        usage: { prompt_tokens: 50, completion_tokens: 10 },
      },
    ]);
    const pattern = new PlanningPattern({ planningPrompt: 'Plan this carefully: {{ goal }}' });
    const result = await pattern.execute(
      {
        tools: [echo],
        systemPrompt: 'You are a careful assistant.',
        llm: { baseURL: 'https://llm.test/v1', model: 'scripted-1', fetch: llm.fetch },
      },
      'echo one',
    );

    expect(result.success).toBe(true);
    const [system, user] = llm.sent[0]!.body.messages;
    expect(system?.content).toContain('You are a careful assistant.');
    expect(user?.content).toMatch(/^Plan this carefully: echo one/);
    expect(llm.sent[0]!.body.model).toBe('scripted-1');
    expect(result.tokenUsage).toEqual({ promptTokens: 50, completionTokens: 10, totalTokens: 60 });
  });

  it('tries a model call that failed in transit (503) again, as the Worker does, and plans with that model', async () => {
    const llm = scriptedLlm([
      { status: 503, error: 'overloaded' },
      planJson([{ id: 'a', description: 'echo', action: 't.echo', parameters: { v: 1 }, dependencies: [] }]),
    ]);
    const result = await new PlanningPattern().execute(
      { tools: [echo], llm: { baseURL: 'https://llm.test/v1', model: 'scripted-1', fetch: llm.fetch } },
      'echo one',
    );

    expect(result.success).toBe(true);
    expect(llm.sent.map((s) => s.body.model)).toEqual(['scripted-1', 'scripted-1']);
  });

  it('generatePlan throws the pipeline’s error, naming what to configure in process — the agent’s llm, not the Worker’s variables — when nothing can plan the goal', async () => {
    const thrown: unknown = await new PlanningPattern()
      .generatePlan({ tools: [echo] }, 'something no rule knows')
      .catch((e: unknown) => e);
    expect(thrown).toMatchObject({
      code: 'planning_unavailable',
      message: expect.stringContaining(
        'no LLM is configured: give the agent `llm: { apiKey }` (OpenAI), or `llm: { baseURL }`',
      ),
      details: { variables: ['llm.apiKey', 'llm.baseURL', 'llm.model', 'llm.fallbackModels'] },
    });
    // Nothing in process reads the Worker's variables: naming them would send a user to set what is never read.
    expect((thrown as Error).message).not.toMatch(/OPENAI_API_KEY|OPENAI_BASE_URL|PLANNER_MODEL/);
  });

  it('a planning that failed throws with every attempt in details.planning_trace, as its message says', async () => {
    const refused = () =>
      Promise.resolve(
        new Response(JSON.stringify({ error: { message: 'Incorrect API key provided' } }), {
          status: 401,
          headers: { 'content-type': 'application/json' },
        }),
      );
    const failure = await new PlanningPattern()
      .execute(
        { tools: [echo], llm: { baseURL: 'https://llm.test/v1', model: 'scripted-1', fetch: refused } },
        'something no rule knows',
      )
      .then(
        () => null,
        (e: unknown) => e as { code: string; message: string; details?: { planning_trace?: unknown[] } },
      );
    expect(failure?.code).toBe('planning_failed');
    expect(failure?.message).toContain('details.planning_trace');
    expect(failure?.details?.planning_trace).toEqual(
      expect.arrayContaining([expect.objectContaining({ planner: 'llm', error_code: 'llm_auth_failed' })]),
    );
  });

  it('revises a failed step’s plan through the model, which is told what failed', async () => {
    const llm = scriptedLlm([
      planJson([
        { id: 'a', description: 'ok', action: 't.echo', parameters: { v: 1 }, dependencies: [] },
        { id: 'b', description: 'breaks', action: 't.fail', parameters: {}, dependencies: ['a'] },
      ]),
      planJson([
        { id: 'c', description: 'instead', action: 't.echo', parameters: { v: 3 }, dependencies: [] },
      ]),
    ]);
    const result = await new PlanningPattern().execute(
      { tools: [echo, fail], llm: { baseURL: 'https://llm.test/v1', model: 'scripted-1', fetch: llm.fetch } },
      'g',
    );
    expect(result).toMatchObject({ success: true, revisionCount: 1 });
    expect(result.finalPlan.steps.map((s) => s.id)).toEqual(['a', 'c']);
    expect(llm.sent[1]!.body.messages.at(-1)?.content).toContain('boom');
  });

  it('with nothing that could revise (rules only, no LLM), a failed step fails the run with its own error', async () => {
    const rules = [
      { id: 'r', match: () => true, toPlanStep: () => [step('bad', 't.fail', { message: 'disk full' })] },
    ];
    const result = await new PlanningPattern().execute({ tools: [fail], rules }, 'g');
    expect(result.error).toMatchObject({ code: 'step_failed', message: 'Step "bad" failed: disk full' });
    expect(result.revisionCount).toBe(0);
  });
});
