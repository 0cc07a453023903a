/**
 * Staged runs (seed 002 multi-stage policies, #15 item 5): a stage's input and output schemas are
 * checked and a failing check is a clear stage failure; transition rules choose the next stage; a
 * stage can rewind to an earlier one, at most `max_stage_rewinds` times. The model is scripted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { api, events, waitForRun, type Json } from '../workers/helpers';

const plan = (steps: unknown[]) => JSON.stringify({ steps });
const echo = (id: string, parameters: Record<string, unknown>, deps: string[] = []) => ({
  id,
  description: `echo ${id}`,
  action: 'demo.echo',
  parameters,
  dependencies: deps,
});

afterEach(() => setLlmFetch(null));

async function stageTrail(runId: string): Promise<string[]> {
  return (await events(runId))
    .filter((e) => e.event_type === 'StageStarted' || e.event_type === 'StageCompleted')
    .map((e: Json) =>
      e.event_type === 'StageStarted'
        ? `start ${e.payload.stage}${e.payload.rewind ? ' (rewind)' : ''}${e.payload.rule ? ` when ${e.payload.rule}` : ''}`
        : `done ${e.payload.stage}`,
    );
}

describe('staged runs: schemas, transitions, rewinds', () => {
  it('fails the stage whose output does not fit its output_schema, naming the stage and the path', async () => {
    setLlmFetch(scriptedLlm([plan([echo('facts', { topic: 'edge' })])]).fetch);
    const stages = [
      // `required` alone, as JSON Schema allows (zod's converter needs the property declared: done for it).
      { name: 'gather', output_schema: { type: 'object', required: ['answer'] } },
      { name: 'answer' },
    ];
    const r = await api('POST', '/v1/runs', { goal: 'answer', config: { strategy: 'staged', stages } });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('stage_output_invalid');
    expect(run.error.message).toMatch(
      /^Stage "gather": its output does not fit its output_schema — answer: /,
    );
    expect(await stageTrail(r.body.run_id)).toEqual(['start gather']);
  });

  it('refuses to enter a stage whose input_schema the previous output does not fit', async () => {
    setLlmFetch(scriptedLlm([plan([echo('facts', { topic: 'edge' })])]).fetch);
    const stages = [
      { name: 'gather', output_schema: { type: 'object', required: ['topic'] } },
      { name: 'answer', input_schema: { type: 'object', properties: { topic: { type: 'number' } } } },
    ];
    const r = await api('POST', '/v1/runs', { goal: 'answer', config: { strategy: 'staged', stages } });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('stage_input_invalid');
    expect(run.error.message).toMatch(/^Stage "answer": its input does not fit its input_schema — topic: /);
    expect(await stageTrail(r.body.run_id)).toEqual(['start gather', 'done gather']);
  });

  it('follows transition rules, rewinding to an earlier stage until the check passes', async () => {
    const draft1 = echo('draft1', { text: 'rough' });
    const check1 = echo('check1', { ok: false }, ['draft1']);
    const draft2 = echo('draft2', { text: 'better' }, ['check1']);
    const check2 = echo('check2', { ok: true }, ['draft2']);
    const llm = scriptedLlm([
      plan([draft1]), // stage write
      plan([draft1, check1]), // stage review
      plan([draft1, check1, draft2]), // stage write again
      plan([draft1, check1, draft2, check2]), // stage review again
    ]);
    setLlmFetch(llm.fetch);
    const stages = [
      { name: 'write', prompt: 'Write a draft.' },
      {
        name: 'review',
        prompt: 'Review the latest draft.',
        transitions: [
          { when: 'steps.check2.output.ok == true', to: '__end__' },
          { when: 'steps.check1.output.ok == false', to: 'write' },
        ],
      },
      { name: 'publish' },
    ];
    const r = await api('POST', '/v1/runs', {
      goal: 'write it well',
      config: { strategy: 'staged', stages },
    });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(await stageTrail(r.body.run_id)).toEqual([
      'start write',
      'done write',
      'start review',
      'done review',
      'start write (rewind) when steps.check1.output.ok == false',
      'done write',
      'start review',
      'done review',
    ]);
    const done = (await events(r.body.run_id)).filter((e) => e.event_type === 'StageCompleted');
    expect(done.map((e) => e.payload.output)).toEqual([
      { text: 'rough' },
      { ok: false },
      { text: 'better' },
      { ok: true },
    ]);
    // The rewound stage was asked again with its own instructions.
    expect(llm.sent[2]!.body.messages[1]!.content).toContain('stage write: Write a draft. (this stage again');
  });

  it('stops a run that keeps rewinding after max_stage_rewinds', async () => {
    setLlmFetch(
      scriptedLlm([plan([echo('a', { n: 1 })]), plan([echo('a', { n: 1 }), echo('b', { n: 2 }, ['a'])])])
        .fetch,
    );
    const stages = [{ name: 'one' }, { name: 'two', transitions: [{ to: 'one' }] }];
    const r = await api('POST', '/v1/runs', {
      goal: 'loop',
      config: { strategy: 'staged', stages, max_stage_rewinds: 0 },
    });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('stage_rewinds_exhausted');
    expect(run.error.message).toMatch(/"two" would go back to "one" again after 0 rewind/);
  });

  it('refuses a config whose transition names no stage, or whose condition does not parse', async () => {
    const bad = await api('POST', '/v1/runs', {
      goal: 'x',
      config: { strategy: 'staged', stages: [{ name: 'a', transitions: [{ to: 'nowhere' }] }] },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/No stage \\"nowhere\\" \(stages: a, or __end__\)/);
    const unparsable = await api('POST', '/v1/runs', {
      goal: 'x',
      config: {
        strategy: 'staged',
        stages: [{ name: 'a', transitions: [{ when: 'steps.x.output ==', to: 'a' }] }],
      },
    });
    expect(unparsable.status).toBe(400);
  });
});
