/**
 * A run cancelled while a `human.input` step waited for its answer, then retried: the question is
 * asked again by the retry itself, not left for the object's recovery alarm (5 s later) to find.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, askingRun, events, waitForRun } from './helpers';

describe('retry after a cancel with a question open', () => {
  it('asks the question again at once: no alarm is needed', async () => {
    const runId = await askingRun();
    expect((await api('POST', `/v1/runs/${runId}/cancel`, {})).status).toBe(200);
    expect((await api('POST', `/v1/runs/${runId}/retry`, {})).status).toBe(200);
    // The recovery alarm is taken away: only the retry can have asked.
    await runInDurableObject(env.PLAN_RUN.getByName(runId), (_, state) => state.storage.deleteAlarm());
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    const kinds = (await events(runId)).map((e) => e.event_type as string);
    // Asked, cancelled, resumed, asked again: the question follows the resume.
    expect(kinds.slice(kinds.lastIndexOf('RunTerminated'))).toEqual([
      'RunTerminated',
      'RunResumed',
      'InputRequested',
    ]);
    // And it is answered as any question is.
    expect((await api('POST', `/v1/runs/${runId}/input`, { input: 'yes', step_id: 'ask' })).status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
  });
});
