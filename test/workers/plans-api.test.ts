import { env, exports } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { planJson, scriptedLlm } from '../unit/planner-helpers';
import type { Json } from './helpers';

const BASE = 'http://edgeplan.test';
const SECRET = 'sk-workers-test-secret-0123456789';
const app = createApp();

/**
 * `POST /v1/plans` on an app whose bindings name an LLM endpoint; the scripted endpoint is reached
 * through the planner's test seam, as the route has no other way to be handed a fetch.
 */
async function plan(
  body: unknown,
  vars: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  const res = await app.fetch(
    new Request(`${BASE}/v1/plans`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }),
    {
      ...env,
      OPENAI_API_KEY: SECRET,
      OPENAI_BASE_URL: 'https://llm.test/v1',
      PLANNER_MODEL: 'wk-a',
      ...vars,
    },
  );
  return { status: res.status, body: await res.json<Json>() };
}

/** Through the real Worker entrypoint, whose bindings configure no LLM. */
async function planWithoutLlm(body: unknown): Promise<{ status: number; body: Json }> {
  const res = await exports.default.fetch(
    new Request(`${BASE}/v1/plans`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
  return { status: res.status, body: await res.json<Json>() };
}

async function attemptRows(planningId: string): Promise<Json[]> {
  const { results } = await env.DB.prepare(
    'SELECT * FROM planning_attempts WHERE planning_id = ?1 ORDER BY seq',
  )
    .bind(planningId)
    .all<Json>();
  return results;
}

afterEach(() => setLlmFetch(null));

describe('POST /v1/plans with an LLM', () => {
  it('answers 201 with the plan, its validation, the trace, plan_id and subtask_count, and stores provenance in D1', async () => {
    const llm = scriptedLlm([`\`\`\`json\n${planJson()}\n\`\`\``]);
    setLlmFetch(llm.fetch);
    const res = await plan({ goal: `Say hi twice (key ${SECRET})`, temperature: 0.3, max_subtasks: 5 });

    expect(res.status).toBe(201);
    const body = res.body;
    expect(body).toMatchObject({
      success: true,
      plan_id: body.plan.id,
      subtask_count: 2,
      planner: 'llm',
      model: 'wk-a',
      validation: { valid: true, errors: [], estimates: { step_count: 2 } },
      plan: { version: 1, strategy: 'flat', goal: `Say hi twice (key ${SECRET})` },
      tokens: { prompt: 100, completion: 20, total: 120 },
    });
    expect(body.plan.id).toMatch(/^plan_/);
    expect(body.planning_trace).toEqual([
      expect.objectContaining({
        planner: 'llm',
        outcome: 'ok',
        model: 'wk-a',
        retry: 0,
        response_format: 'json_schema',
      }),
    ]);
    expect(llm.sent[0]!.body.messages[1]!.content).toContain('At most 5 steps');

    const rows = await attemptRows(body.planning_id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: body.planning_trace[0].attempt_id,
      model: 'wk-a',
      temperature: 0.3,
      template_id: 'plan.default',
      template_version: '1.1.0',
      retry: 0,
      outcome: 'ok',
      plan_id: body.plan_id,
      prompt_tokens: 100,
      completion_tokens: 20,
    });
    expect(rows[0]!.prompt).not.toContain(SECRET);
    expect(rows[0]!.prompt).toContain('[REDACTED]');
    expect(rows[0]!.raw_output).toContain('"steps"');

    const reliability = await env.DB.prepare('SELECT * FROM model_reliability WHERE model = ?1')
      .bind('wk-a')
      .first<Json>();
    expect(reliability).toMatchObject({ attempts: 1, successes: 1, parse_failures: 0 });
  });

  it('repairs a cycle and stores both attempts with their findings', async () => {
    const cycle = planJson([
      { id: 'a', action: 'demo.echo', parameters: {}, dependencies: ['b'] },
      { id: 'b', action: 'demo.echo', parameters: {}, dependencies: ['a'] },
    ]);
    setLlmFetch(scriptedLlm([cycle, planJson()]).fetch);
    const res = await plan({ goal: 'g' }, { PLANNER_MODEL: 'wk-repair' });

    expect(res.status).toBe(201);
    const rows = await attemptRows(res.body.planning_id);
    expect(rows.map((r) => [r.retry, r.outcome])).toEqual([
      [0, 'invalid'],
      [1, 'ok'],
    ]);
    expect(JSON.parse(rows[0]!.findings_json as string)).toEqual([
      expect.objectContaining({ code: 'cycle', message: 'Cycle detected: a -> b -> a' }),
    ]);
    const reliability = await env.DB.prepare('SELECT * FROM model_reliability WHERE model = ?1')
      .bind('wk-repair')
      .first<Json>();
    expect(reliability).toMatchObject({ attempts: 2, successes: 1, validation_failures: 1 });
  });

  it('answers 422 planning_failed with the whole trace when no model and no rule produce a plan', async () => {
    setLlmFetch(scriptedLlm({ 'wk-f1': ['no', 'no'], 'wk-f2': ['{"steps": 3}', '{"steps": []}'] }).fetch);
    const res = await plan(
      { goal: 'Compose a symphony' },
      { PLANNER_MODEL: 'wk-f1', PLANNER_FALLBACK_MODELS: 'wk-f2' },
    );

    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('planning_failed');
    expect(res.body.error.message).toMatch(/4 LLM attempts \(models: wk-f1, wk-f2\)/);
    const trace = res.body.error.details.planning_trace as Json[];
    expect(trace.map((t) => `${t.planner}:${t.model ?? ''}:${t.outcome}`)).toEqual([
      'llm:wk-f1:parse_error',
      'llm:wk-f1:parse_error',
      'llm:wk-f2:parse_error',
      'llm:wk-f2:invalid',
      'rules::no_match',
    ]);
  });

  it('uses a prompt template stored in KV in place of the built-in one', async () => {
    const llm = scriptedLlm([planJson()]);
    setLlmFetch(llm.fetch);
    await env.KV.put(
      'prompt-template:plan.default',
      JSON.stringify({
        id: 'plan.default',
        version: '7.1',
        text: 'CUSTOM PLANNER for {{ goal }}\n{{ tools }}\n{{ output_format }}',
      }),
    );
    try {
      const res = await plan({ goal: 'kv goal' });
      expect(res.status).toBe(201);
      expect(llm.sent[0]!.body.messages[1]!.content).toMatch(/^CUSTOM PLANNER for kv goal\n- /);
      expect((await attemptRows(res.body.planning_id))[0]).toMatchObject({
        template_id: 'plan.default',
        template_version: '7.1',
      });
    } finally {
      await env.KV.delete('prompt-template:plan.default');
    }
  });

  it('renders a per-request prompt_template and still appends the limits', async () => {
    const llm = scriptedLlm([planJson()]);
    setLlmFetch(llm.fetch);
    const res = await plan({
      goal: 'ship it',
      prompt_template: 'Break down this goal into actionable subtasks.\nGoal: {{ goal }}',
    });
    expect(res.status).toBe(201);
    const user = llm.sent[0]!.body.messages[1]!.content;
    expect(user).toMatch(/^Break down this goal into actionable subtasks\.\nGoal: ship it\n/);
    expect(user).toContain('Limits:');
    expect(res.body.plan.metadata.prompt_template).toMatchObject({ id: 'request' });
  });

  it('answers 400 invalid_request for an unknown stored template id', async () => {
    setLlmFetch(scriptedLlm([]).fetch);
    const res = await plan({ goal: 'g', prompt_template_id: 'nope' });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'invalid_request',
      message: 'No prompt template "nope" (KV key "prompt-template:nope")',
    });
  });
});

describe('POST /v1/plans without an LLM', () => {
  it('plans a goal a built-in rule understands', async () => {
    const res = await planWithoutLlm({ goal: 'echo hello then wait 10 ms' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ planner: 'rules', model: null, subtask_count: 2, success: true });
    expect(res.body.plan.steps.map((s: Json) => s.action)).toEqual(['demo.echo', 'demo.sleep']);
    expect(res.body.planning_trace).toEqual([{ planner: 'rules', outcome: 'ok', rule: 'builtin.sequence' }]);
  });

  it('answers 422 planning_unavailable naming the variables to set for any other goal', async () => {
    const res = await planWithoutLlm({ goal: 'Plan my holiday' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('planning_unavailable');
    expect(res.body.error.message).toMatch(/OPENAI_API_KEY.*OPENAI_BASE_URL/s);
    expect(res.body.error.details.variables).toContain('PLANNER_FALLBACK_MODELS');
  });

  it('rejects a request without a goal or with a bad field as 400 naming the field', async () => {
    const missing = await planWithoutLlm({ strategy: 'flat' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/goal/);
    const bad = await planWithoutLlm({ goal: 'g', temperature: 9 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/temperature/);
  });

  it('is in the OpenAPI document', async () => {
    const res = await exports.default.fetch(new Request(`${BASE}/openapi.json`));
    const doc = await res.json<Json>();
    const op = doc.paths['/v1/plans'].post;
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['201', '400', '422']));
    expect(doc.components.schemas.PlanGoalRequest.properties).toHaveProperty('max_subtasks');
  });
});
