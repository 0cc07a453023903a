import { runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { verifyWebhook } from '../../src/approval/webhook';
import { createApp } from '../../src/http/app';
import { api, startRun, waitForRun, type Json } from './helpers';
import { echo } from '../fixtures/echo-steps';

const plan = { goal: 'approve me', steps: [echo('a'), echo('b', ['a'])] };
const awaiting = (r: Json) => r.status === 'awaiting_approval';

/** Captures the approval webhook the run's object sends (same isolate, so the global fetch is ours). */
function captureWebhooks() {
  const sent: { url: string; headers: Headers; body: string }[] = [];
  const real = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const req = new Request(input, init);
    if (!req.url.startsWith('https://approver.example.com/')) return real(input, init);
    sent.push({ url: req.url, headers: req.headers, body: await req.text() });
    return new Response('ok');
  });
  return sent;
}

afterEach(() => vi.restoreAllMocks());

describe('plan approval', () => {
  it('waits for approval, sends a signed webhook with a single-use link, and runs once approved through it', async () => {
    const hooks = captureWebhooks();
    const runId = await startRun(plan, {
      require_plan_approval: true,
      approval: { webhook_url: 'https://approver.example.com/hook', timeout_s: 600 },
    });
    await waitForRun(runId, awaiting);
    await vi.waitFor(() => expect(hooks).toHaveLength(1));
    const hook = hooks[0]!;
    const payload = verifyWebhook(env.WEBHOOK_SECRET!, hook.headers, hook.body) as Json;
    expect(payload).toMatchObject({ type: 'plan.approval_requested', run_id: runId, plan_version: 1 });
    // What happens at expires_at if nobody decides: the run's default_action (reject unless set).
    expect(payload.default_action).toBe('reject');
    expect(payload.approval_url).toMatch(new RegExp(`/v1/runs/${runId}/approval\\?token=apv_`));
    // A forged signature does not verify.
    expect(() => verifyWebhook('whsec_' + btoa('not the secret'), hook.headers, hook.body)).toThrow();

    // The link works without the API token, once.
    const app = createApp();
    const link = new URL(payload.approval_url as string);
    const post = (body: unknown, url = link) =>
      app.fetch(
        new Request(`http://edgeplan.test${url.pathname}${url.search}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
        { ...env, API_TOKEN: 'secret-token' },
      );
    const ok = await post({ decision: 'approve', comment: 'lgtm' });
    expect(ok.status).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    const replayed = await post({ decision: 'approve' });
    // The link is checked before the run's state: spent, whatever the run is doing now.
    expect(replayed.status).toBe(410);
  });

  it.each([
    ['file:///etc/passwd', 'must be an http or https URL (got file:)'],
    ['ftp://approver.example.com/hook', 'must be an http or https URL (got ftp:)'],
    ['https://me:pw@approver.example.com/hook', 'must not carry a user or password'],
  ])(
    'refuses a webhook_url the deployment would not send as given (%s) with 400 saying why',
    async (url, why) => {
      const r = await api('POST', '/v1/runs', {
        plan,
        config: { require_plan_approval: true, approval: { webhook_url: url } },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
      expect(r.body.error.message).toContain(`config.approval.webhook_url ${why}`);
      expect(r.body.error.message).not.toContain(':pw@');
    },
  );

  it('refuses a wrong, reused or foreign approval token', async () => {
    const hooks = captureWebhooks();
    const config = {
      require_plan_approval: true,
      approval: { webhook_url: 'https://approver.example.com/hook' },
    };
    const [one, two] = [await startRun(plan, config), await startRun(plan, config)];
    await waitForRun(one, awaiting);
    await waitForRun(two, awaiting);
    await vi.waitFor(() => expect(hooks).toHaveLength(2));
    const links = hooks.map((h) => (JSON.parse(h.body) as Json).approval_url as string);
    const tokenOf = (runId: string) =>
      new URL(links.find((l) => l.includes(runId))!).searchParams.get('token')!;
    const wrong = await api('POST', `/v1/runs/${one}/approval?token=apv_nope`, { decision: 'approve' });
    expect(wrong.status).toBe(403);
    const foreign = await api('POST', `/v1/runs/${one}/approval?token=${tokenOf(two)}`, {
      decision: 'approve',
    });
    expect(foreign.status).toBe(403);
    // Spend run two's link on a rejection, then try it again.
    expect(
      (await api('POST', `/v1/runs/${two}/approval?token=${tokenOf(two)}`, { decision: 'reject' })).status,
    ).toBe(200);
    expect((await waitForRun(two)).status).toBe('cancelled');
    await api('POST', `/v1/runs/${one}/approval`, { decision: 'approve' });
    expect((await waitForRun(one)).status).toBe('completed');
  });

  it('runs a modified plan as version 2, and refuses a modification that introduces a cycle with the findings', async () => {
    const runId = await startRun(plan, { require_plan_approval: true });
    await waitForRun(runId, awaiting);
    const cyclic = await api('POST', `/v1/runs/${runId}/approval`, {
      decision: 'modify',
      edits: [{ op: 'set_dependencies', step_id: 'a', dependencies: ['b'] }],
    });
    expect(cyclic.status).toBe(422);
    expect(cyclic.body.error.code).toBe('invalid_plan');
    expect(cyclic.body.error.details.errors[0].message).toMatch(
      /Cycle detected: a -> b -> a|Cycle detected: b -> a -> b/,
    );
    const edited = await api('POST', `/v1/runs/${runId}/approval`, {
      decision: 'modify',
      edits: [
        {
          op: 'add_step',
          step: { id: 'c', action: 'demo.echo', parameters: { id: 'c' }, dependencies: ['b'] },
        },
      ],
    });
    expect(edited.status).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.plan_version).toBe(2);
    expect(Object.keys(run.step_results).sort()).toEqual(['a', 'b', 'c']);
    const diff = await api('GET', `/v1/runs/${runId}/plans/1/diff/2`);
    expect(diff.body.added.map((s: Json) => s.id)).toEqual(['c']);
  });

  it('refuses an edit at approval that gives a nested key a tool does not take, or a fallback that cannot take the step’s parameters', async () => {
    const runId = await startRun(plan, { require_plan_approval: true });
    await waitForRun(runId, awaiting);
    const nested = await api('POST', `/v1/runs/${runId}/approval`, {
      decision: 'modify',
      edits: [
        {
          op: 'add_step',
          step: {
            id: 'ask',
            action: 'llm.call',
            parameters: { messages: [{ role: 'user', content: 'hi', rol: 'system' }] },
            dependencies: ['b'],
          },
        },
      ],
    });
    expect(nested.status).toBe(422);
    expect(nested.body.error.code).toBe('invalid_plan');
    expect(nested.body.error.details.errors).toEqual([
      {
        code: 'invalid_parameters',
        message:
          'Step "ask": parameters.messages[0].rol: unknown key "rol" (did you mean "role"?); parameters.messages[0] of tool llm.call takes role, content',
        step_id: 'ask',
        path: ['parameters', 'messages', 0, 'rol'],
      },
    ]);
    const fallback = await api('POST', `/v1/runs/${runId}/approval`, {
      decision: 'modify',
      edits: [{ op: 'update_step', step_id: 'b', changes: { fallback_action: 'demo.sleep' } }],
    });
    expect(fallback.status).toBe(422);
    expect(fallback.body.error.details.errors).toEqual([
      expect.objectContaining({ code: 'invalid_parameters', step_id: 'b', path: ['fallback_action'] }),
    ]);
    // Neither edit was taken: the run still waits on version 1.
    const run = (await api('GET', `/v1/runs/${runId}`)).body;
    expect([run.status, run.plan_version]).toEqual(['awaiting_approval', 1]);
    await api('POST', `/v1/runs/${runId}/approval`, { decision: 'reject' });
  });

  it('applies the default action when the approval deadline passes', async () => {
    const runId = await startRun(plan, {
      require_plan_approval: true,
      approval: { timeout_s: 0.05, default_action: 'approve' },
    });
    await waitForRun(runId, awaiting);
    // Said where an approver decides: what happens at the deadline.
    const asked = (await api('GET', `/v1/runs/${runId}`)).body.pending_approval as Json;
    expect(asked).toMatchObject({ plan_version: 1, default_action: 'approve' });
    await new Promise((r) => setTimeout(r, 60));
    await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId));
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    const rejected = await startRun(plan, { require_plan_approval: true, approval: { timeout_s: 0.05 } });
    await waitForRun(rejected, awaiting);
    await new Promise((r) => setTimeout(r, 60));
    await runDurableObjectAlarm(env.PLAN_RUN.getByName(rejected));
    expect((await waitForRun(rejected)).status).toBe('cancelled');
  });

  it('a retry never runs a plan nobody approved: 409 after a rejection, or a cancel while it awaited approval', async () => {
    for (const stop of ['reject', 'cancel'] as const) {
      const runId = await startRun(plan, { require_plan_approval: true });
      await waitForRun(runId, awaiting);
      const stopped =
        stop === 'reject'
          ? await api('POST', `/v1/runs/${runId}/approval`, { decision: 'reject' })
          : await api('POST', `/v1/runs/${runId}/cancel`);
      expect(stopped).toMatchObject({ status: 200, body: { status: 'cancelled' } });
      for (const body of [undefined, { step_id: 'a' }]) {
        const retried = await api('POST', `/v1/runs/${runId}/retry`, body);
        expect(retried.status).toBe(409);
        expect(retried.body.error).toMatchObject({
          code: 'conflict',
          details: { reason: 'run_not_retryable' },
        });
        expect(retried.body.error.message).toContain('start a new run');
      }
      const run = (await api('GET', `/v1/runs/${runId}`)).body;
      expect(run.status).toBe('cancelled');
      expect(run.step_results).toEqual({});
      const types = ((await api('GET', `/v1/runs/${runId}/events`)).body.events as Json[]).map(
        (e) => e.event_type,
      );
      expect(types).not.toContain('RunResumed');
      expect(types).not.toContain('ToolInvoked');
    }
  });

  it('never waits open-ended: without an approval block the deadline is a day away', async () => {
    const before = Date.now();
    const runId = await startRun(plan, { require_plan_approval: true });
    await waitForRun(runId, awaiting);
    const log = (await api('GET', `/v1/runs/${runId}/events`)).body.events as Json[];
    const asked = log.find((e) => e.event_type === 'ApprovalRequested')!;
    expect(asked.payload.deadline_at).toBeGreaterThanOrEqual(before + 86_400_000);
    const pending = (await api('GET', `/v1/runs/${runId}`)).body.pending_approval as Json;
    expect(pending).toMatchObject({
      deadline_at: new Date(asked.payload.deadline_at as number).toISOString(),
      default_action: 'reject',
    });
    expect(asked.payload.deadline_at).toBeLessThan(Date.now() + 86_400_000 + 60_000);
  });

  it('refuses a decision for a run that is not awaiting approval', async () => {
    const runId = await startRun(plan);
    await waitForRun(runId);
    const r = await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' });
    expect(r.status).toBe(409);
    const bad = await api('POST', `/v1/runs/${runId}/approval`, { decision: 'maybe' });
    expect(bad.status).toBe(400);
  });
});

describe('plan versions', () => {
  it('rolls back to an earlier version as a new version with its content, keeping completed work', async () => {
    const slow = {
      goal: 'roll me back',
      steps: [{ id: 'a', action: 'demo.sleep', parameters: { ms: 400 } }, echo('b', ['a'])],
    };
    const runId = await startRun(slow, { require_plan_approval: true });
    await waitForRun(runId, awaiting);
    await api('POST', `/v1/runs/${runId}/approval`, {
      decision: 'modify',
      edits: [{ op: 'update_step', step_id: 'b', changes: { parameters: { id: 'b2' } } }],
    });
    // Sent twice at once while a sleeps: one new version; the other finds the run already has it.
    const [r, again] = await Promise.all(
      [1, 2].map(() => api('POST', `/v1/runs/${runId}/rollback`, { version: 1 })),
    );
    expect([r!.status, again!.status]).toEqual([200, 200]);
    expect([r!.body.plan_version, again!.body.plan_version]).toEqual([3, 3]);
    const v1 = await api('GET', `/v1/runs/${runId}/plans/1`);
    const v3 = await api('GET', `/v1/runs/${runId}/plans/3`);
    expect(v3.body.steps).toEqual(v1.body.steps);
    const list = await api('GET', `/v1/runs/${runId}/plans`);
    expect(list.body.versions.map((v: Json) => v.version)).toEqual([1, 2, 3]);
    const nine = await api('GET', `/v1/runs/${runId}/plans/9`);
    expect(nine.status).toBe(404);
    expect(nine.body.error.message).toBe(`Run "${runId}" has no plan version 9 (its versions: 1, 2, 3)`);
    const diff9 = await api('GET', `/v1/runs/${runId}/plans/1/diff/9`);
    expect([diff9.status, diff9.body.error.message]).toEqual([404, nine.body.error.message]);
    expect((await api('POST', `/v1/runs/${runId}/rollback`, { version: 9 })).status).toBe(404);
    expect((await waitForRun(runId)).step_results.b).toEqual({ id: 'b' }); // version 1's b ran
  });

  it('refuses to roll back a completed run: nothing follows RunTerminated', async () => {
    const runId = await startRun(plan, { require_plan_approval: true });
    await waitForRun(runId, awaiting);
    await api('POST', `/v1/runs/${runId}/approval`, {
      decision: 'modify',
      edits: [{ op: 'update_step', step_id: 'b', changes: { parameters: { id: 'b2' } } }],
    });
    expect((await waitForRun(runId)).status).toBe('completed');
    const r = await api('POST', `/v1/runs/${runId}/rollback`, { version: 1 });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('conflict');
    expect(r.body.error.message).toContain('is completed');
    const log = await api('GET', `/v1/runs/${runId}/events`);
    expect(log.body.events.at(-1).event_type).toBe('RunTerminated');
    expect((await api('GET', `/v1/runs/${runId}/plans`)).body.versions).toHaveLength(2);
  });
});

describe('input', () => {
  it('ask_user waits for an answer, and the answer retries the failed step', async () => {
    const key = `ask-${Date.now()}`;
    const runId = await startRun(
      { steps: [{ id: 'f', action: 'demo.flaky', parameters: { fail_times: 1, key } }] },
      { on_step_failure: 'replan', revision_strategy: 'ask_user', retry_failed_steps: 0 },
    );
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    const r = await api('POST', `/v1/runs/${runId}/input`, { input: { note: 'try once more' } });
    expect(r.status).toBe(200);
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.state).toEqual({ note: 'try once more' });
  });

  it('refuses an ask_user answer of "replan" when no planner is configured; the run keeps waiting', async () => {
    const runId = await startRun(
      {
        steps: [
          { id: 'f', action: 'demo.flaky', parameters: { fail_times: 5, key: `replan-${Date.now()}` } },
        ],
      },
      { on_step_failure: 'replan', revision_strategy: 'ask_user', retry_failed_steps: 0 },
    );
    await waitForRun(runId, (r) => r.status === 'awaiting_input');
    const r = await api('POST', `/v1/runs/${runId}/input`, { input: { action: 'replan' } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('planning_unavailable');
    expect(r.body.error.message).toContain('{"action": "skip"}');
    expect((await api('GET', `/v1/runs/${runId}`)).body.status).toBe('awaiting_input');
    expect(await api('POST', `/v1/runs/${runId}/input`, { input: { action: 'skip' } })).toMatchObject({
      status: 200,
    });
    const run = await waitForRun(runId);
    expect([run.status, run.step_statuses.f]).toEqual(['completed', 'skipped']);
  });

  it('refuses a replan when no planner is configured', async () => {
    const runId = await startRun({ steps: [{ id: 'w', action: 'demo.sleep', parameters: { ms: 200 } }] });
    const r = await api('POST', `/v1/runs/${runId}/replan`, { reason: 'why not' });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('planning_unavailable');
    // What to set, where: as a goal's refusal says it (docs/errors.md).
    expect(r.body.error.message).toMatch(
      /^Revising a plan needs an LLM planner\. No LLM is configured\. Set OPENAI_API_KEY/,
    );
    expect(r.body.error.message).toContain('wrangler secret put OPENAI_API_KEY');
  });

  it('answers a replan of an unknown run 404 and of a finished one 409, whatever the planner', async () => {
    const unknown = await api('POST', '/v1/runs/run_0123456789abcdef0123456789abcdef/replan', {
      reason: 'x',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    const runId = await startRun({ steps: [echo('a')] });
    await waitForRun(runId);
    const finished = await api('POST', `/v1/runs/${runId}/replan`, { reason: 'x' });
    expect(finished.status).toBe(409);
    expect(finished.body.error.code).toBe('conflict');
    expect(finished.body.error.message).toBe(
      `Run ${runId} is completed: an ended run's plan is not revised. Start a new run with the plan you want` +
        ' (config on_step_failure: "replan" has a failure re-planned while the run goes on).',
    );
  });

  it('says how to run a failed run again when a replan of it is asked for', async () => {
    const runId = await startRun({
      steps: [{ id: 'f', action: 'demo.flaky', parameters: { fail_times: 5, permanent: true } }],
    });
    expect((await waitForRun(runId)).status).toBe('failed');
    const r = await api('POST', `/v1/runs/${runId}/replan`, { reason: 'the alert id was wrong' });
    expect(r.status).toBe(409);
    expect(r.body.error.details).toEqual({ reason: 'run_status', status: 'failed', needed: 'running' });
    expect(r.body.error.message).toContain(`POST /v1/runs/${runId}/retry (edgeplan retry ${runId})`);
  });
});
