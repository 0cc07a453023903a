/**
 * ReAct runs (seed 002's baseline loop, #15 item 4): each turn is one tool call — the thought, the
 * action, the observation — the exit criteria are checked after each observation by the judge, and a
 * turn budget ends a model that never stops. The model is scripted; everything else is the real run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { api, events, waitForRun, type Json } from '../workers/helpers';

const plan = (steps: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify({ steps, ...extra });
const act = (id: string, thought: string, deps: string[] = []) => ({
  id,
  description: `Thought: ${thought}`,
  action: 'demo.echo',
  parameters: { id },
  dependencies: deps,
});
const verdict = (ok: boolean, reason: string) => JSON.stringify({ ok, reason });

afterEach(() => setLlmFetch(null));

async function trace(runId: string): Promise<string[]> {
  // thought → action → observation, as the events tell it.
  return (await events(runId))
    .filter((e) => ['ThoughtAdded', 'ToolInvoked', 'ToolReturned', 'ReflectionAdded'].includes(e.event_type))
    .map((e: Json) =>
      e.event_type === 'ThoughtAdded'
        ? `thought ${e.payload.turn}: ${e.payload.thought} → ${e.payload.step_id ?? 'done'}`
        : e.event_type === 'ToolInvoked'
          ? `action ${e.payload.step_id}`
          : e.event_type === 'ToolReturned'
            ? `observation ${e.payload.step_id}`
            : `exit ${e.payload.exit_criteria_met}`,
    );
}

describe('react runs: one tool call per turn', () => {
  it('records thought → action → observation each turn, keeps one new step per turn, and ends when the model adds none', async () => {
    const llm = scriptedLlm([
      // The first plan proposes two steps: only the first is the turn's action.
      plan([act('look', 'I need to see first'), act('act', 'then act', ['look'])]),
      // Turn 1: the model adds two steps again; only `act` is taken.
      plan([
        act('look', 'x'),
        act('act', 'look returned an id, act on it', ['look']),
        act('extra', 'more', ['act']),
      ]),
      // Turn 2: nothing new — the goal is met.
      plan([act('look', 'x'), act('act', 'y', ['look'])]),
    ]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', { goal: 'look, then act', config: { strategy: 'react' } });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(Object.keys(run.step_results).sort()).toEqual(['act', 'look']);
    expect(await trace(r.body.run_id)).toEqual([
      'thought 0: I need to see first → look',
      'action look',
      'observation look',
      'thought 1: look returned an id, act on it → act',
      'action act',
      'observation act',
      'thought 2: The goal is met: no further action. → done',
    ]);
    const thoughts = (await events(r.body.run_id)).filter((e) => e.event_type === 'ThoughtAdded');
    expect(thoughts.map((e) => e.payload.dropped ?? [])).toEqual([['act'], ['extra'], []]);
    // Each turn's prompt asks for one tool call and carries the observations so far.
    expect(llm.sent[1]!.body.messages[1]!.content).toContain('ReAct turn 1 of 10');
    expect(llm.sent[2]!.body.messages[1]!.content).toContain('result: {"id":"act"}');
  });

  it('checks the exit criteria after each observation and stops once the judge finds them met', async () => {
    const llm = scriptedLlm([
      plan([act('search', 'find it')], { success_criteria: 'the answer is known' }),
      verdict(false, 'only a lead so far'), // after `search`
      plan([act('search', 'x'), act('read', 'read the lead', ['search'])], {
        success_criteria: 'the answer is known',
      }),
      verdict(true, 'the page has the answer'), // after `read`: done, no further turn
    ]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', { goal: 'find the answer', config: { strategy: 'react' } });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect(await trace(r.body.run_id)).toEqual([
      'thought 0: find it → search',
      'action search',
      'observation search',
      'exit false',
      'thought 1: read the lead → read',
      'action read',
      'observation read',
      'exit true',
    ]);
    expect(llm.sent).toHaveLength(4); // no turn after the criteria were met
    // The judge's tokens count in the run's usage (scripted: 100 + 20 a call).
    expect(run.token_usage.total_tokens).toBe(4 * 120);
  });

  it('does not end the loop on a verdict it cannot read, and reads a "met" verdict as the judge meant it', async () => {
    const llm = scriptedLlm([
      plan([act('search', 'find it')], { success_criteria: 'the answer is known' }),
      'I think it is probably fine.', // after `search`: no verdict at all — not a pass
      plan([act('search', 'x'), act('read', 'read the lead', ['search'])], {
        success_criteria: 'the answer is known',
      }),
      JSON.stringify({ met: false, reason: 'not yet' }), // after `read`: a synonym, and a "no"
      plan([act('search', 'x'), act('read', 'x', ['search']), act('ask', 'ask', ['read'])], {
        success_criteria: 'the answer is known',
      }),
      JSON.stringify({ met: true, reason: 'asked and answered' }),
    ]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', { goal: 'find the answer', config: { strategy: 'react' } });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('completed');
    expect((await trace(r.body.run_id)).filter((t) => t.startsWith('exit'))).toEqual([
      'exit false',
      'exit false',
      'exit true',
    ]);
    const reflections = (await events(r.body.run_id)).filter((e) => e.event_type === 'ReflectionAdded');
    expect(reflections[0]!.payload.reflection).toMatch(
      /^Exit criteria not met yet after "search": the judge could not answer \(The judge's answer holds no JSON object/,
    );
    expect(reflections[1]!.payload.reflection).toBe('Exit criteria not met yet after "read": not yet');
    expect(Object.keys(run.step_results).sort()).toEqual(['ask', 'read', 'search']);
  });

  it('fails with turn_budget_exhausted when the model still acts after max_turns', async () => {
    setLlmFetch(
      scriptedLlm([
        plan([act('s0', 'again')]),
        plan([act('s0', 'x'), act('s1', 'again', ['s0'])]),
        plan([act('s0', 'x'), act('s1', 'x', ['s0']), act('s2', 'again', ['s1'])]),
      ]).fetch,
    );
    const r = await api('POST', '/v1/runs', {
      goal: 'never stop',
      config: { strategy: 'react', max_turns: 2 },
    });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('turn_budget_exhausted');
    expect(run.error.message).toMatch(/after 2 turn\(s\)/);
    expect(Object.keys(run.step_results).sort()).toEqual(['s0', 's1']);
  });

  it('fails with turn_budget_exhausted naming max_steps once the plan has max_steps steps, before max_turns', async () => {
    const llm = scriptedLlm([
      plan([act('s0', 'again')]),
      plan([act('s0', 'x'), act('s1', 'again', ['s0'])]),
      plan([act('s0', 'x'), act('s1', 'x', ['s0']), act('s2', 'again', ['s1'])]),
    ]);
    setLlmFetch(llm.fetch);
    const r = await api('POST', '/v1/runs', {
      goal: 'never stop',
      config: { strategy: 'react', max_turns: 10, max_steps: 2 },
    });
    const run = await waitForRun(r.body.run_id);
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('turn_budget_exhausted');
    expect(run.error.message).toMatch(/the plan has max_steps \(2\) steps/);
    expect(Object.keys(run.step_results).sort()).toEqual(['s0', 's1']);
    // No third call for a plan too_many_steps would refuse.
    expect(llm.sent).toHaveLength(2);
  });
});
