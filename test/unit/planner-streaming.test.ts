import { describe, expect, it } from 'vitest';
import type { PlannerState, PlanYield } from '../../src/planner/contracts';
import { isStepYield } from '../../src/planner/contracts';
import { LineSplitter } from '../../src/planner/line-splitter';
import { MemoryProvenanceStore } from '../../src/planner/provenance';
import { LlmStreamingPlanner } from '../../src/planner/streaming-planner';
import type { Plan } from '../../src/plan/model';
import { deps, planJson, scriptedLlm } from './planner-helpers';

const stepLine = (id: string, dependencies: string[] = []) =>
  JSON.stringify({
    type: 'step',
    step: { id, description: id, action: 'demo.echo', parameters: { id }, dependencies },
  });

const state = (goal = 'Echo three things'): PlannerState => ({
  goal,
  tools: deps().tools.describe(),
  limits: { max_steps: 10, max_depth: 2 },
});

async function collect(stream: AsyncIterable<PlanYield>): Promise<PlanYield[]> {
  const out: PlanYield[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

const ids = (items: PlanYield[]) => items.filter(isStepYield).map((s) => s.id);
const finished = (items: PlanYield[]): Plan | undefined => {
  const last = items.at(-1);
  return last && 'finish' in last ? last.finish.plan : undefined;
};

describe('streaming planner', () => {
  it('yields each step as its line arrives, even split across chunks, then the whole plan', async () => {
    const text = `${stepLine('a')}\n${stepLine('b', ['a'])}\n${stepLine('c', ['a'])}\n{"type":"finish"}\n`;
    const pieces = [text.slice(0, 30), text.slice(30, 95), text.slice(95)];
    const llm = scriptedLlm([{ stream: pieces }]);
    const provenance = new MemoryProvenanceStore();
    const items = await collect(
      new LlmStreamingPlanner(deps({ fetch: llm.fetch, provenance })).plan(state()),
    );

    expect(ids(items)).toEqual(['a', 'b', 'c']);
    const plan = finished(items)!;
    expect(plan.steps.map((s) => [s.id, s.dependencies])).toEqual([
      ['a', []],
      ['b', ['a']],
      ['c', ['a']],
    ]);
    expect(plan.metadata).toMatchObject({ planner: 'llm', model: 'model-a' });

    const sent = llm.sent[0]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(sent.response_format).toBeUndefined();
    expect(llm.sent[0]!.body.messages[1]!.content).toContain('Answer in NDJSON');

    const [attempt] = provenance.all();
    expect(attempt).toMatchObject({
      outcome: 'ok',
      response_format: 'text',
      plan_id: plan.id,
      prompt_tokens: 80,
      completion_tokens: 30,
    });
    expect(attempt!.raw_output).toContain('{"type":"finish"}');
  });

  it('hands out the first step before the model has finished the plan', async () => {
    const encoder = new TextEncoder();
    let push!: (s: string) => void;
    let close!: () => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (s) => controller.enqueue(encoder.encode(s));
        close = () => controller.close();
      },
    });
    const chunk = (content: string) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'model-a', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    const fetchImpl = () =>
      Promise.resolve(new Response(body, { headers: { 'Content-Type': 'text/event-stream' } }));

    const stream = new LlmStreamingPlanner(deps({ fetch: fetchImpl })).plan(state())[Symbol.asyncIterator]();
    push(chunk(`${stepLine('a')}\n`));
    const first = await stream.next();
    expect(first.value).toMatchObject({ id: 'a', action: 'demo.echo' });

    push(chunk(`${stepLine('b', ['a'])}\n`));
    push('data: [DONE]\n\n');
    close();
    expect((await stream.next()).value).toMatchObject({ id: 'b' });
    expect((await stream.next()).value).toHaveProperty('finish');
    expect((await stream.next()).done).toBe(true);
  });

  it('rejects with planning_failed naming the accepted steps when a later step depends on one not yet streamed', async () => {
    const llm = scriptedLlm([
      { stream: [`${stepLine('a')}\n${stepLine('b', ['later'])}\n${stepLine('later')}\n`] },
    ]);
    const seen: string[] = [];
    const run = async () => {
      for await (const item of new LlmStreamingPlanner(deps({ fetch: llm.fetch })).plan(state())) {
        if (isStepYield(item)) seen.push(item.id);
      }
    };
    await expect(run()).rejects.toMatchObject({
      code: 'planning_failed',
      message: expect.stringMatching(/after 1 accepted step: unknown_dependency: .*later/),
      details: { accepted_steps: ['a'], planning_trace: [expect.objectContaining({ outcome: 'invalid' })] },
    });
    expect(seen).toEqual(['a']);
  });

  it('falls back to the whole pipeline when the stream fails before any step', async () => {
    const llm = scriptedLlm([
      { stream: ['I will now think about it.\n{"type": "step", "step": {"id": "a" "action"}}\n'] },
      planJson(),
    ]);
    const items = await collect(new LlmStreamingPlanner(deps({ fetch: llm.fetch })).plan(state()));
    expect(ids(items)).toEqual(['a', 'b']);
    expect(finished(items)?.steps).toHaveLength(2);
    expect((llm.sent[1]!.body as Record<string, unknown>).stream).toBeUndefined();
  });

  it('reads a whole JSON plan from the stream when the model answers with one, without asking again', async () => {
    const whole = JSON.stringify(
      {
        steps: [
          { id: 'a', description: 'a', action: 'demo.echo', parameters: { id: 'a' }, dependencies: [] },
          { id: 'b', description: 'b', action: 'demo.echo', parameters: { id: 'b' }, dependencies: ['a'] },
        ],
      },
      null,
      2,
    );
    const text = `Here is the plan:\n\`\`\`json\n${whole}\n\`\`\`\n`;
    const llm = scriptedLlm([{ stream: [text.slice(0, 40), text.slice(40)] }]);
    const items = await collect(new LlmStreamingPlanner(deps({ fetch: llm.fetch })).plan(state()));
    expect(llm.sent).toHaveLength(1);
    expect(ids(items)).toEqual(['a', 'b']);
    const last = items.at(-1);
    expect(last && 'finish' in last ? last.finish.result : null).toEqual({
      tokens: { prompt: 80, completion: 30 },
    });
  });

  it('counts the failed stream’s tokens and the whole pipeline’s when it falls back', async () => {
    const llm = scriptedLlm([{ stream: ['no plan here at all\n'] }, planJson()]);
    const items = await collect(new LlmStreamingPlanner(deps({ fetch: llm.fetch })).plan(state()));
    expect(llm.sent).toHaveLength(2);
    const last = items.at(-1);
    // 80 + 30 streamed, then the whole pipeline's 100 + 20.
    expect(last && 'finish' in last ? last.finish.result : null).toEqual({
      tokens: { prompt: 180, completion: 50 },
    });
  });

  it('plans with the rules when no LLM is configured', async () => {
    const items = await collect(
      new LlmStreamingPlanner(deps({ env: {} })).plan(state('echo hi then wait 3 ms')),
    );
    expect(ids(items)).toEqual(['echo', 'wait']);
  });

  it('rejects with planning_unavailable when no LLM is configured and no rule matches', async () => {
    await expect(
      collect(new LlmStreamingPlanner(deps({ env: {} })).plan(state('Plan a wedding'))),
    ).rejects.toMatchObject({
      code: 'planning_unavailable',
    });
  });
});

describe('line splitting', () => {
  it('hands out a line only when its newline has arrived, CRLF included, and the rest on flush', () => {
    const s = new LineSplitter();
    expect(s.push('{"a"')).toEqual([]);
    expect(s.push(':1}\r')).toEqual([]);
    expect(s.push('\n{"b":2}\nlast')).toEqual(['{"a":1}', '{"b":2}']);
    expect(s.flush()).toEqual(['last']);
    expect(s.flush()).toEqual([]);
  });
});
