/**
 * A goal planned in process streams as it does in the Worker (test/workers-llm/goal-runs.test.ts): an
 * eager run that needs no approval runs each step as soon as it has streamed in and validated; one
 * that needs approval, or asks for the best of several plans, is planned whole.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalRunner, pipelineProvider, replay, ToolRegistry } from '../../src/index';
import { randomIds, systemClock } from '../../src/library/defaults';
import { echo, scriptedModelRunner, settle } from './library-helpers';
import { planJson, scriptedLlm } from './planner-helpers';

const echoStep = (id: string, dependencies: string[] = [], parameters: object = { id }) => ({
  id,
  description: `echo ${id}`,
  action: 't.echo',
  parameters,
  dependencies,
});
/** A streamed NDJSON answer (seed 003): one `{"type":"step"}` line per step. */
const ndjson = (steps: unknown[]) => steps.map((step) => `${JSON.stringify({ type: 'step', step })}\n`);

describe('a goal planned in process', () => {
  it('streams: its first step is scheduled before the plan is whole, and the run ends as the Worker’s does', async () => {
    const llm = scriptedLlm([
      { stream: ndjson([echoStep('a'), echoStep('b', ['a'], { from: '{{ steps.a.output.id }}' })]) },
    ]);
    const runner = scriptedModelRunner(llm.fetch);
    runner.start({ goal: 'echo twice', config: { execution_mode: 'sequential' } });
    const end = await runner.done();
    expect(end).toMatchObject({ status: 'completed', step_results: { b: { from: 'a' } } });
    expect(end.token_usage.total_tokens).toBeGreaterThan(0);
    expect(llm.sent[0]!.body.stream).toBe(true);
    const types = runner.events.map((e) => e.event_type);
    expect(types.indexOf('StepStreamed')).toBe(1);
    expect(types.indexOf('StepScheduled')).toBeLessThan(types.indexOf('PlanAuthored'));
  });

  it('is planned whole when the run needs approval first', async () => {
    const llm = scriptedLlm([planJson([echoStep('a')])]);
    const runner = scriptedModelRunner(llm.fetch);
    runner.start({ goal: 'echo once', config: { require_plan_approval: true } });
    for (let i = 0; i < 200 && runner.snapshot().status !== 'awaiting_approval'; i++) await settle(5);
    expect(runner.events.map((e) => e.event_type)).toEqual([
      'RunCreated',
      'PlanAuthored',
      'PlanValidated',
      'ApprovalRequested',
    ]);
    expect(llm.sent[0]!.body.stream).not.toBe(true);
    runner.cancel();
  });

  it('without a model, fails naming the agent’s llm options, not the Worker’s variables', async () => {
    const tools = new ToolRegistry([echo]);
    const runner = new LocalRunner({
      tools,
      planner: pipelineProvider({ tools, clock: systemClock, ids: randomIds }),
    });
    runner.start({ goal: 'something no rule knows' });
    const end = await runner.done();
    expect(end.status).toBe('failed');
    expect(end.error).toMatchObject({
      code: 'planning_unavailable',
      message: expect.stringContaining('no LLM is configured: give the agent `llm: { apiKey }`'),
    });
    expect(end.error?.message).not.toMatch(/OPENAI_API_KEY|OPENAI_BASE_URL|PLANNER_MODEL/);
  });
});

let listening: Server | undefined;
afterEach(() => {
  listening?.closeAllConnections();
  listening?.close();
  listening = undefined;
});

/** A runner whose goals a model on loopback plans (stallingModel), reached through Node's own fetch. */
async function stallingRunner(lines: string[]): Promise<LocalRunner> {
  const { baseURL, server } = await stallingModel(lines);
  listening = server;
  const tools = new ToolRegistry([echo]);
  return new LocalRunner({
    tools,
    planner: pipelineProvider({ tools, llm: { baseURL, model: 'm' }, clock: systemClock, ids: randomIds }),
  });
}

/** A model on loopback that streams `lines` as SSE chunks and then goes silent, the stream left open. */
async function stallingModel(lines: string[]): Promise<{ baseURL: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const content of lines) {
        const chunk = {
          id: 'c',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'm',
          choices: [{ index: 0, delta: { content }, finish_reason: null }],
        };
        res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseURL: `http://127.0.0.1:${port}/v1`, server };
}

describe('a streamed planning cut by cancel, in process', () => {
  it('counts what had streamed on the run’s end, as the Worker does, through the runtime’s own fetch', async () => {
    const runner = await stallingRunner(ndjson([echoStep('a'), echoStep('b')]));
    runner.start({ goal: 'echo twice' });
    for (let i = 0; i < 400 && runner.snapshot().step_statuses.b !== 'completed'; i++) await settle(5);
    expect(runner.snapshot()).toMatchObject({
      status: 'running',
      step_statuses: { a: 'completed', b: 'completed' },
    });

    expect(runner.cancel('enough')).toBeUndefined();
    const end = await runner.done();
    expect(end.status).toBe('cancelled');
    // The stream sent no usage: what streamed is estimated from the text, and charged to the end.
    expect(end.token_usage.completion_tokens).toBeGreaterThan(0);
    const ended = runner.events.at(-1);
    expect(ended?.event_type === 'RunTerminated' && ended.payload.tokens).toEqual({
      prompt: end.token_usage.prompt_tokens,
      completion: end.token_usage.completion_tokens,
    });
    expect(replay(runner.events).state.token_usage).toEqual(end.token_usage);
  });
});

describe('a streamed planning cut by two cancels, in process', () => {
  it('counts what had streamed when a second cancel comes while the first waits for the planning', async () => {
    const runner = await stallingRunner(ndjson([echoStep('a')]));
    runner.start({ goal: 'echo once' });
    for (let i = 0; i < 400 && runner.snapshot().step_statuses.a !== 'completed'; i++) await settle(5);
    expect(runner.snapshot()).toMatchObject({ status: 'running', step_statuses: { a: 'completed' } });

    // A caller's abort and a step's deadline may both cancel (planning-pattern.ts, subplan.ts).
    expect(runner.cancel('enough')).toBeUndefined();
    expect(runner.cancel('enough, again')).toBeUndefined();
    const end = await runner.done();
    expect(end.status).toBe('cancelled');
    expect(end.token_usage.completion_tokens).toBeGreaterThan(0);
    const ended = runner.events.filter((e) => e.event_type === 'RunTerminated');
    expect(ended).toHaveLength(1);
    expect(ended[0]?.event_type === 'RunTerminated' && ended[0].payload.reason).toBe('enough');
  });
});

describe('a streamed planning cancelled as its first step arrives, in process', () => {
  it('takes no step that streams in after the cancel, though the planning has it already', async () => {
    // Both steps in one chunk: the second is read before the cancel, and yielded after it.
    const runner = await stallingRunner([ndjson([echoStep('a'), echoStep('b')]).join('')]);
    let cancelled: unknown = 'not yet';
    runner.subscribe((e) => {
      if (e.event_type === 'StepStreamed' && cancelled === 'not yet') cancelled = runner.cancel('enough');
    });
    runner.start({ goal: 'echo twice' });
    const end = await runner.done();
    expect(cancelled).toBeUndefined();
    expect(end.status).toBe('cancelled');
    const streamed = runner.events.filter((e) => e.event_type === 'StepStreamed');
    expect(streamed.map((e) => e.event_type === 'StepStreamed' && e.payload.step.id)).toEqual(['a']);
    expect(Object.keys(end.step_statuses)).toEqual(['a']);
  });
});
