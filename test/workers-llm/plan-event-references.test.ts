/**
 * SPEC §5's event envelope on a plan a model wrote: `references.prompt_version` names the version of
 * the prompt template behind it, beside the plan's id and version — and is absent where no prompt
 * wrote the plan (a caller's).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setLlmFetch } from '../../src/planner/llm-transport';
import { scriptedLlm } from '../unit/planner-helpers';
import { api, events, startRun, waitForRun } from '../workers/helpers';

afterEach(() => setLlmFetch(null));

describe('references.prompt_version', () => {
  it('is on the PlanAuthored of a plan a model wrote: the version of the template it was prompted with', async () => {
    setLlmFetch(
      scriptedLlm([
        JSON.stringify({
          steps: [{ id: 'a', action: 'demo.echo', parameters: { ok: true }, dependencies: [] }],
        }),
      ]).fetch,
    );
    // Planned whole (a run awaiting approval does not stream).
    const r = await api('POST', '/v1/runs', { goal: 'echo ok', config: { require_plan_approval: true } });
    expect(r.status).toBe(201);
    const run = await waitForRun(r.body.run_id, (x) => x.status === 'awaiting_approval');
    const template = run.plan.metadata.prompt_template as { id: string; version: string };
    expect(template.version).toMatch(/\S/);
    const authored = (await events(r.body.run_id)).find((e) => e.event_type === 'PlanAuthored')!;
    expect(authored.references).toEqual({
      plan_id: run.plan.id,
      plan_version: 1,
      prompt_version: template.version,
    });
  });

  it('is absent from the PlanAuthored of a plan the caller wrote', async () => {
    const id = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] });
    await waitForRun(id);
    const authored = (await events(id)).find((e) => e.event_type === 'PlanAuthored')!;
    expect(authored.references).not.toHaveProperty('prompt_version');
  });
});
