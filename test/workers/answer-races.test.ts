/**
 * Two people answering one `human.input` question at the same moment — the same answer or different
 * ones, through the API or an agent: the first answer is the step's output, recorded once, and every
 * other is refused `409 input_not_awaited` saying the step was answered — also when that answer
 * completed the run, which before answered the second only that the run is over. Two answers to a
 * failed step's question (skip, abort, retry): the second is told which action was taken, and by whom.
 */
import { describe, expect, it } from 'vitest';
import { api, askingRun, events, startRun, waitForRun } from './helpers';

describe('answers to one question sent at once', () => {
  it('take the first; each other is told the step was answered already', async () => {
    for (let round = 0; round < 6; round++) {
      const runId = await askingRun();
      // Same answers in even rounds, different ones in odd rounds; 2 to 5 of them.
      const sent = Array.from({ length: 2 + (round % 4) }, (_, i) => (round % 2 ? `answer ${i}` : 'same'));
      const answers = await Promise.all(
        sent.map((input, i) =>
          api('POST', `/v1/runs/${runId}/input`, { input, step_id: 'ask', approver: `p${i}` }),
        ),
      );
      const taken = answers.flatMap((a, i) => (a.status === 200 ? [i] : []));
      expect(taken).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 200)) {
        expect(a.status).toBe(409);
        expect(a.body.error.details).toMatchObject({ reason: 'input_not_awaited', step_id: 'ask' });
        expect(a.body.error.message).toContain('answered already');
      }
      const run = await waitForRun(runId);
      expect(run.status).toBe('completed');
      expect(run.step_results.ask).toBe(sent[taken[0]!]);
      const received = (await events(runId)).filter((e) => e.event_type === 'InputReceived');
      expect(received.map((e) => e.payload.answered_by)).toEqual([`p${taken[0]}`]);
    }
  });

  it('about a failed step (skip, abort, retry): take the first; the other is told what was decided, by whom', async () => {
    type Action = 'skip' | 'abort' | 'retry';
    const pairs: [Action, Action][] = [
      ['skip', 'abort'],
      ['abort', 'skip'],
      ['skip', 'retry'],
      ['retry', 'skip'],
      ['abort', 'retry'],
      ['retry', 'abort'],
    ];
    for (let round = 0; round < pairs.length; round++) {
      const runId = await startRun(
        {
          steps: [
            {
              id: 'f',
              action: 'demo.flaky',
              parameters: { fail_times: 1, key: `race-${round}-${Date.now()}` },
            },
          ],
        },
        { on_step_failure: 'replan', revision_strategy: 'ask_user', retry_failed_steps: 0 },
      );
      await waitForRun(runId, (r) => r.status === 'awaiting_input');
      // Every pair of different answers, each first in turn.
      const sent = pairs[round]!;
      const answers = await Promise.all(
        sent.map((action, i) =>
          api('POST', `/v1/runs/${runId}/input`, { input: { action }, step_id: 'f', approver: `p${i}` }),
        ),
      );
      const taken = answers.flatMap((a, i) => (a.status === 200 ? [i] : []));
      expect(taken).toHaveLength(1);
      const winner = taken[0]!;
      const loser = answers[1 - winner]!;
      expect(loser.status).toBe(409);
      expect(loser.body.error.details).toMatchObject({
        reason: 'input_not_awaited',
        step_id: 'f',
        decided: sent[winner],
        answered_by: `p${winner}`,
      });
      expect(loser.body.error.message).toContain(`answered already by p${winner} (${sent[winner]}:`);
      const run = await waitForRun(runId);
      const expected = { skip: 'completed', abort: 'aborted', retry: 'completed' }[sent[winner]!];
      expect(run.status).toBe(expected);
      const received = (await events(runId)).filter((e) => e.event_type === 'InputReceived');
      expect(received.map((e) => e.payload.answered_by)).toEqual([`p${winner}`]);
    }
  });
});
