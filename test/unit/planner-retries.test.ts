import { describe, expect, it } from 'vitest';
import { planGoal } from '../../src/planner/pipeline';
import { deps, planJson, scriptedLlm } from './planner-helpers';

describe('a model call that fails in transit is retried with backoff (llmRetries)', () => {
  it('retries a 503 and a 429, then plans from the answer that came', async () => {
    const llm = scriptedLlm([
      { status: 503, error: 'overloaded' },
      { status: 429, error: 'slow down' },
      planJson(),
    ]);
    const out = await planGoal({ goal: 'Say hi twice' }, deps({ fetch: llm.fetch, llmRetries: 2 }));
    expect(out.ok).toBe(true);
    expect(llm.sent).toHaveLength(3);
  });

  it('does not retry without llmRetries, nor an error a retry cannot fix', async () => {
    const plain = scriptedLlm({ 'model-a': [{ status: 503, error: 'overloaded' }], 'model-b': [planJson()] });
    await planGoal({ goal: 'Say hi twice' }, deps({ fetch: plain.fetch }));
    expect(plain.sent.filter((s) => s.body.model === 'model-a')).toHaveLength(1);
    const auth = scriptedLlm({ 'model-a': [{ status: 401, error: 'bad key' }], 'model-b': [planJson()] });
    await planGoal({ goal: 'Say hi twice' }, deps({ fetch: auth.fetch, llmRetries: 2 }));
    expect(auth.sent.filter((s) => s.body.model === 'model-a')).toHaveLength(1);
  });
});
