/**
 * An approval link a newer one replaced — a rollback (or a revision) asked about a new plan version
 * and a new link went out — answers `410 approval_link_superseded`, naming the version it asked about
 * and the one that awaits now, on its page and to a decision; a token the run never sent stays `403`
 * and learns nothing. The run recognises its last 8 earlier links, no more.
 */
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { INVALID_TOKEN_MESSAGE } from '../../src/approval/tokens';
import { EARLIER_LINKS_KEPT } from '../../src/approval/issued-links';
import { createApp } from '../../src/http/app';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { api, waitForRun, type Json } from '../workers/helpers';
import { describedEcho as echo } from '../fixtures/echo-steps';
import { revisionAwaitingApproval } from './revision-setup';

/** Where the runs' webhooks go: answered by the mocked fetch, never reached. */
const HOOK = 'http://127.0.0.1:9/hook';

const config = {
  require_plan_approval: true,
  approval: { revisions: 'ask', timeout_s: 600, webhook_url: HOOK },
  on_step_failure: 'replan',
  retry_failed_steps: 0,
  execution_mode: 'parallel',
  placement: 'queue',
};

const app = createApp();
/** The link's page (GET) or a decision through it (POST), with no API token. */
async function viaLink(runId: string, token: string, body?: unknown) {
  const res = await app.fetch(
    new Request(`http://edgeplan.test/v1/runs/${runId}/approval?token=${token}`, {
      method: body === undefined ? 'GET' : 'POST',
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    }),
    { ...env, API_TOKEN: 'secret-token' },
  );
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as Json };
}

/**
 * A run whose v1 was approved through the API and whose planner-written v2 awaits approval, and the
 * tokens of every link its webhooks sent, oldest first (`tokens[i]` asked about version i + 1).
 * `rollBack` puts the next version in place (the content of v1 and v2 in turn), which the approver
 * is asked about with a new link.
 */
async function revisionWithLinks() {
  const tokens: string[] = [];
  const real = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const req = new Request(input, init);
    if (!req.url.startsWith(HOOK)) return real(input, init);
    const sent = await req.json<Json>();
    tokens[(sent.plan_version as number) - 1] = new URL(sent.approval_url as string).searchParams.get(
      'token',
    )!;
    return new Response('ok');
  });
  setLlmFetch(
    scriptedLlm(
      Array.from({ length: 20 }, () => JSON.stringify({ steps: [echo('a'), echo('fixed', ['a'])] })),
    ).fetch,
  );
  const runId = await revisionAwaitingApproval(config, 'superseded');
  await vi.waitFor(() => expect(tokens[1]).toBeDefined(), { timeout: 10_000 });
  let to = 1;
  const rollBack = async () => {
    const r = await api('POST', `/v1/runs/${runId}/rollback`, { version: to });
    expect(r.body).toMatchObject({ status: 'awaiting_approval' });
    to = 3 - to;
    const version = r.body.plan_version as number;
    await vi.waitFor(() => expect(tokens[version - 1]).toBeDefined(), { timeout: 10_000 });
  };
  return { runId, tokens, rollBack };
}

afterEach(() => {
  setLlmFetch(null);
  vi.restoreAllMocks();
});

describe('an approval link a newer one replaced', () => {
  it('answers 410 naming the version it asked about and the one awaiting, page and decision alike', async () => {
    const { runId, tokens, rollBack } = await revisionWithLinks();
    await rollBack();
    const [, second, third] = tokens as [string, string, string];

    const refused = await viaLink(runId, second, { decision: 'approve', approver: 'Ada' });
    expect(refused.status).toBe(410);
    expect(refused.json().error).toMatchObject({
      code: 'approval_link_superseded',
      details: { asked_version: 2, awaited_version: 3, status: 'awaiting_approval' },
    });
    expect(refused.json().error.message).toMatch(
      /asked about plan version 2 .*Version 3 now awaits approval/,
    );
    // Its page says so in place of the plan and its buttons.
    const page = await viaLink(runId, second);
    expect(page.status).toBe(410);
    expect(page.text).toContain('asked about plan version 2');
    expect(page.text).toContain('Version 3 now awaits approval');
    // Nothing was decided or spent: version 3 still awaits, and its link decides it.
    expect((await api('GET', `/v1/runs/${runId}`)).body).toMatchObject({
      status: 'awaiting_approval',
      plan_version: 3,
    });
    expect((await viaLink(runId, third, { decision: 'reject' })).status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('cancelled');

    // Once the run no longer awaits a decision, the earlier link says that too.
    const after = await viaLink(runId, second, { decision: 'approve' });
    expect(after.status).toBe(410);
    expect(after.json().error).toMatchObject({
      code: 'approval_link_superseded',
      details: { asked_version: 2, awaited_version: null },
    });
    expect(after.json().error.message).toContain('nothing to approve');
  });

  it('is told apart from a token the run never sent, which stays 403 and learns nothing', async () => {
    const { runId, tokens, rollBack } = await revisionWithLinks();
    await rollBack();
    const nearMiss = tokens[1]!.slice(0, -4) + 'AAAA';
    for (const body of [{ decision: 'approve' }, undefined]) {
      const r = await viaLink(runId, nearMiss, body);
      expect(r.status).toBe(403);
      expect(r.text).not.toContain('version');
    }
    expect((await viaLink(runId, nearMiss, { decision: 'approve' })).json()).toMatchObject({
      error: { code: 'forbidden', message: INVALID_TOKEN_MESSAGE },
    });
  });

  it(`recognises the last ${EARLIER_LINKS_KEPT} earlier links, and an older one as never sent`, async () => {
    const { runId, tokens, rollBack } = await revisionWithLinks();
    for (let i = 0; i < EARLIER_LINKS_KEPT; i++) await rollBack();
    expect(tokens).toHaveLength(EARLIER_LINKS_KEPT + 2);
    const current = tokens.at(-1)!;
    // The oldest (version 1's) fell out of the bounded list: refused as a token never sent.
    expect((await viaLink(runId, tokens[0]!, { decision: 'approve' })).status).toBe(403);
    for (const [i, token] of tokens.slice(1, -1).entries()) {
      const r = await viaLink(runId, token, { decision: 'approve' });
      expect(r.status).toBe(410);
      expect(r.json().error.details).toMatchObject({
        asked_version: i + 2,
        awaited_version: EARLIER_LINKS_KEPT + 2,
      });
    }
    expect((await viaLink(runId, current, { decision: 'approve' })).status).toBe(200);
  });
});
