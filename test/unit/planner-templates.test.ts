import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../src/executor/tools';
import type { PlannerState } from '../../src/planner/contracts';
import { redactSecrets, secretsOf } from '../../src/planner/redact';
import { KvTemplateStore, MemoryTemplateStore, resolveTemplate } from '../../src/planner/template-store';
import { DEFAULT_TEMPLATE, inlineTemplate, renderPrompt } from '../../src/planner/templates';

const tools = createToolRegistry({ DEMO_TOOLS: 'true' }).describe();
const state: PlannerState = {
  goal: 'Fetch the news',
  tools,
  limits: { max_steps: 9, max_depth: 2, token_budget: 5000 },
};

describe('prompt rendering', () => {
  it('fills the default template with the goal, every tool and its schemas, the limits and the output shape', () => {
    const p = renderPrompt(DEFAULT_TEMPLATE, state);
    expect(p.template).toEqual({ id: 'plan.default', version: '1.1.0' });
    expect(p.system).toMatch(/exactly one JSON object/);
    expect(p.user).toContain('Goal: Fetch the news');
    for (const t of tools) expect(p.user).toContain(`- ${t.name}: `);
    expect(p.user).toContain('output schema: {"type":"object","properties":{"key"');
    expect(p.user).toContain('At most 9 steps');
    expect(p.user).toContain('at most 5000 LLM tokens');
    expect(p.user).toContain('No sub-plans');
    expect(p.user).toContain('"{{ steps.<id>.output }}"');
    expect(p.user).not.toContain('"$schema"');
    expect(p.user).not.toMatch(/\{\{ (goal|tools|limits|output_format) \}\}/);
  });

  it('describes sub-plans only for the hierarchical strategy', () => {
    const p = renderPrompt(DEFAULT_TEMPLATE, { ...state, strategy: 'hierarchical' });
    expect(p.user).toContain('Sub-plans nested at most 2 deep');
    expect(p.user).toContain('"subplan"');
  });

  it("appends what a seed-001 custom prompt leaves out, keeping the prompt's own text first", () => {
    const t = inlineTemplate('Break down this goal into actionable subtasks.\nGoal: {{ goal }}');
    const p = renderPrompt(t, { ...state, input: { city: 'Oslo' } });
    expect(p.template.id).toBe('request');
    expect(p.template.version).toMatch(/^[0-9a-f]{8}$/);
    expect(p.user).toMatch(
      /^Break down this goal into actionable subtasks\.\nGoal: Fetch the news\n\nRun input/,
    );
    expect(p.user).toContain('{"city":"Oslo"}');
    expect(p.user).toContain('Available tools');
    expect(p.user).toContain('Limits:');
    expect(p.user).toContain('Return exactly one JSON object');
    expect(p.user.match(/Goal:/g)).toHaveLength(1);
  });

  it('leaves unknown placeholders alone, so plan references in a template survive', () => {
    const p = renderPrompt(
      inlineTemplate('{{ goal }} / {{ steps.a.output }} / {{ limits.max_steps }}'),
      state,
    );
    expect(p.user).toMatch(/^Fetch the news \/ \{\{ steps\.a\.output \}\} \/ 9/);
  });

  it('gives different texts different versions', () => {
    expect(inlineTemplate('a').version).not.toBe(inlineTemplate('b').version);
  });

  it('shows a re-plan the current plan, step statuses, results and the failure', () => {
    const p = renderPrompt(DEFAULT_TEMPLATE, {
      ...state,
      plan: {
        id: 'plan_1',
        version: 2,
        goal: 'g',
        strategy: 'flat',
        created_at: 't',
        steps: [
          { id: 'a', description: 'a', action: 'demo.echo', parameters: { x: 1 }, dependencies: [] },
          {
            id: 'b',
            description: 'b',
            action: 'demo.flaky',
            parameters: { fail_times: 9 },
            dependencies: ['a'],
          },
        ],
      },
      step_statuses: { a: 'completed', b: 'failed' },
      step_results: { a: { x: 1 } },
      failure: { step_id: 'b', code: 'demo_flaky', reason: 'attempt 3 fails' },
    });
    expect(p.user).toContain('revision of plan plan_1 version 2');
    expect(p.user).toContain('- a [completed] demo.echo {"x":1}');
    expect(p.user).toContain('result: {"x":1}');
    expect(p.user).toContain('- b [failed] demo.flaky');
    expect(p.user).toContain('step "b" failed (demo_flaky): attempt 3 fails');
    expect(p.user).toContain('Keep every completed step exactly as it is');
  });
});

describe('template stores', () => {
  const kv = (values: Record<string, string>) => ({
    get: (key: string) => Promise.resolve(values[key] ?? null),
  });

  it('reads {id, version, text} from KV under prompt-template:<id>', async () => {
    const store = new KvTemplateStore(
      kv({ 'prompt-template:x': JSON.stringify({ id: 'x', version: 3, text: 'T {{ goal }}' }) }),
    );
    expect(await store.get('x')).toEqual({ id: 'x', version: '3', text: 'T {{ goal }}' });
    expect(await store.get('y')).toBeNull();
  });

  it('names the KV key when a stored value is not a template', async () => {
    const r = await resolveTemplate(
      new KvTemplateStore(kv({ 'prompt-template:plan.default': '{"id": "plan.default"}' })),
      {},
    );
    expect(r).toEqual({
      ok: false,
      message: expect.stringMatching(
        /^KV key "prompt-template:plan\.default" is not a prompt template \(version: .*text: /,
      ),
    });
  });

  it('prefers request text, then the named template, then the stored default, then the built-in', async () => {
    const stored = { id: 'plan.default', version: '9', text: 'stored' };
    const named = { id: 'mine', version: '1', text: 'mine' };
    const store = new MemoryTemplateStore([stored, named]);
    expect(await resolveTemplate(store, { text: 'inline', id: 'mine' })).toMatchObject({
      template: { id: 'request', text: 'inline' },
    });
    expect(await resolveTemplate(store, { id: 'mine' })).toEqual({ ok: true, template: named });
    expect(await resolveTemplate(store, {})).toEqual({ ok: true, template: stored });
    expect(await resolveTemplate(new MemoryTemplateStore(), {})).toEqual({
      ok: true,
      template: DEFAULT_TEMPLATE,
    });
    expect(await resolveTemplate(store, { id: 'gone' })).toEqual({
      ok: false,
      message: 'No prompt template "gone" (KV key "prompt-template:gone")',
    });
  });
});

describe('secret redaction', () => {
  it('replaces known secret values wherever they appear', () => {
    expect(redactSecrets('key=abcd1234 and again abcd1234', ['abcd1234'])).toBe(
      'key=[REDACTED] and again [REDACTED]',
    );
  });

  it('replaces bearer tokens, API keys and labelled secrets by pattern', () => {
    const text =
      'Authorization: Bearer eyJhbGciOi.J9.abc and sk-proj-ABCDEFGHIJKLMNOP, ghp_abcdefghijklmnopqrstuv, AKIAABCDEFGHIJKLMNOP, ' +
      '{"api_key": "s3cr3t-value"} password=hunter22';
    const out = redactSecrets(text);
    for (const secret of ['eyJhbGciOi', 'sk-proj', 'ghp_', 'AKIA', 's3cr3t', 'hunter22'])
      expect(out).not.toContain(secret);
    expect(out).toContain('"api_key": "[REDACTED]"');
  });

  it('leaves ordinary planning text alone', () => {
    const text = 'Use "max_tokens": 200 and "token_budget": 100; fetch https://example.com then echo done';
    expect(redactSecrets(text)).toBe(text);
  });

  it("collects an environment's keys, tokens and secrets", () => {
    expect(
      secretsOf({ OPENAI_API_KEY: 'k1', API_TOKEN: 't1', WEBHOOK_SECRET: 'w1', PLANNER_MODEL: 'm', DB: {} }),
    ).toEqual(['k1', 't1', 'w1']);
  });

  it('collects each token of an API_TOKEN that holds several (a rotation), so either is redacted alone', () => {
    const secrets = secretsOf({ API_TOKEN: 'tok-old-1234, tok-new-5678\n' });
    expect(secrets).toEqual(['tok-old-1234, tok-new-5678', 'tok-old-1234', 'tok-new-5678']);
    expect(redactSecrets('sent tok-new-5678 to the hook', secrets)).toBe('sent [REDACTED] to the hook');
  });

  it('collects each secret of a WEBHOOK_SECRET that lists several (a rotation), with or without whsec_', () => {
    // A bare base64 secret is one the standardwebhooks package takes too; no pattern knows its shape.
    const secrets = secretsOf({ WEBHOOK_SECRET: 'whsec_b2xkLXNlY3JldA==, bmV3LXNlY3JldC0xMjM0' });
    expect(secrets).toContain('bmV3LXNlY3JldC0xMjM0');
    expect(secrets).toContain('whsec_b2xkLXNlY3JldA==');
    expect(redactSecrets('keyed with bmV3LXNlY3JldC0xMjM0 alone', secrets)).toBe(
      'keyed with [REDACTED] alone',
    );
  });
});
