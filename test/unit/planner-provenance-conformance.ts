/**
 * One conformance suite for every ProvenanceStore (STYLE §4): the memory store runs it in Node
 * (planner-provenance.test.ts), the D1 store in the Workers runtime (planning-provenance-d1.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { PlanningAttempt, ProvenanceStore } from '../../src/planner/provenance';

let n = 0;

/** An attempt with every field set; `over` changes some. Ids are unique across calls. */
export function attempt(over: Partial<PlanningAttempt> = {}): PlanningAttempt {
  n++;
  return {
    id: `patt_conf_${n}_${Math.random().toString(36).slice(2)}`,
    planning_id: `planning_conf_${n}_${Math.random().toString(36).slice(2)}`,
    seq: 1,
    model: 'conf-model',
    temperature: 0.7,
    template_id: 'plan.default',
    template_version: '1.1.0',
    retry: 0,
    candidate: 0,
    response_format: 'json_schema',
    prompt: '[{"role":"user","content":"goal"}]',
    raw_output: '{"steps": []}',
    outcome: 'ok',
    error: null,
    parse_format: 'plan',
    findings: [],
    prompt_tokens: 10,
    completion_tokens: 5,
    latency_ms: 100,
    plan_id: 'plan_1',
    strategy: 'flat',
    created_at: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

export function provenanceStoreConformance(name: string, make: () => ProvenanceStore): void {
  const unique = (prefix: string) => `${prefix}_${Math.random().toString(36).slice(2)}`;

  describe(`${name} (ProvenanceStore conformance)`, () => {
    it('returns the attempts of one planning request in seq order, every field intact', async () => {
      const store = make();
      const planning_id = unique('planning');
      const second = attempt({
        planning_id,
        seq: 2,
        retry: 1,
        outcome: 'invalid',
        plan_id: null,
        raw_output: null,
        error: null,
        temperature: null,
        findings: [{ code: 'cycle', message: 'Cycle detected: a -> b -> a', step_id: 'a' }],
      });
      const first = attempt({
        planning_id,
        seq: 1,
        outcome: 'parse_error',
        error: 'Invalid JSON',
        parse_format: null,
        plan_id: null,
      });
      await store.recordAttempt(second);
      await store.recordAttempt(first);
      await store.recordAttempt(attempt({ planning_id: unique('other') }));
      expect(await store.attempts(planning_id)).toEqual([first, second]);
    });

    it('keeps which attempts’ token counts were estimated (a stream cut off before its usage)', async () => {
      const store = make();
      const planning_id = unique('planning');
      const cut = attempt({ planning_id, seq: 1, tokens_estimated: true });
      const whole = attempt({ planning_id, seq: 2 });
      await store.recordAttempt(cut);
      await store.recordAttempt(whole);
      const [first, second] = await store.attempts(planning_id);
      expect(first).toEqual(cut);
      expect(first?.tokens_estimated).toBe(true);
      expect(second).toEqual(whole);
      expect(second?.tokens_estimated).toBeUndefined();
    });

    it('returns nothing for an unknown planning request', async () => {
      expect(await make().attempts(unique('nobody'))).toEqual([]);
    });

    it('folds each attempt into its model’s counts and rates', async () => {
      const store = make();
      const model = unique('model');
      await store.recordAttempt(attempt({ model, outcome: 'ok', latency_ms: 100 }));
      await store.recordAttempt(attempt({ model, outcome: 'parse_error', latency_ms: 200 }));
      await store.recordAttempt(attempt({ model, outcome: 'invalid', latency_ms: 300 }));
      await store.recordAttempt(
        attempt({ model, outcome: 'call_error', latency_ms: 400, created_at: '2026-01-02T00:00:00.000Z' }),
      );
      const stats = await store.reliability([model]);
      expect(stats.get(model)).toEqual({
        model,
        attempts: 4,
        successes: 1,
        parse_failures: 1,
        validation_failures: 1,
        call_failures: 1,
        total_latency_ms: 1000,
        updated_at: '2026-01-02T00:00:00.000Z',
        parse_fail_rate: 0.25,
        validation_fail_rate: 0.25,
        success_rate: 0.25,
        avg_latency_ms: 250,
      });
    });

    it('counts an attempt recorded twice once', async () => {
      const store = make();
      const model = unique('model');
      const a = attempt({ model });
      await store.recordAttempt(a);
      await store.recordAttempt(a);
      expect(await store.attempts(a.planning_id)).toHaveLength(1);
      expect((await store.reliability([model])).get(model)?.attempts).toBe(1);
    });

    it('refuses a second attempt with the same planning id and seq', async () => {
      const store = make();
      const a = attempt();
      await store.recordAttempt(a);
      await expect(
        store.recordAttempt(attempt({ planning_id: a.planning_id, seq: a.seq })),
      ).rejects.toThrow();
      expect(await store.attempts(a.planning_id)).toEqual([a]);
    });

    it('reports only the models asked for, and every model when none are named', async () => {
      const store = make();
      const a = unique('a');
      const b = unique('b');
      await store.recordAttempt(attempt({ model: a }));
      await store.recordAttempt(attempt({ model: b }));
      expect([...(await store.reliability([a, 'never-used'])).keys()]).toEqual([a]);
      expect([...(await store.reliability()).keys()]).toEqual(expect.arrayContaining([a, b]));
    });
  });
}
