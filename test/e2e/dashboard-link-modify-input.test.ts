/**
 * The approval link's Modify editor holds an edit to the run's input as the API does, without the
 * link's holder being sent the input: the page carries the input's shape (each path's kind), and the
 * editor checks an edit against a stand-in of that shape — a whole `{{ input.… }}` the step's tool
 * cannot take is a finding as you type (the button stays disabled), not "✔ Valid" and then the API's
 * 422. No value of the input is in anything the page receives, nor in what it sends. In chromium
 * against `wrangler dev`; screenshots go to test-results/screenshots/.
 */
import { describe, expect, it } from 'vitest';
import { dashboardSetup } from './dashboard-setup';

const { env, api, waitForStatus, shot } = dashboardSetup('dashboard-link-modify-input', {
  webhooks: true,
});

const plan = {
  goal: 'Hold the release',
  steps: [{ id: 'a', action: 'demo.echo', parameters: { id: 'a' }, dependencies: [] }],
};
/** Values the link's holder must not learn; `wait` is a string, which demo.sleep's `ms` cannot take. */
const secrets = ['wait-5s-Qx81Zr', 'nested-K9vT2w', '__proto__-Pm4Ls7', 73914826051];
const input = {
  wait: secrets[0],
  ms: 2,
  deep: { note: secrets[1], ids: [secrets[3], true, null] },
  // A computed key is the object's own, as JSON.parse makes it (a plain `__proto__:` sets the prototype).
  ['__proto__']: secrets[2],
};
const shape = {
  wait: 'string',
  ms: 'number',
  deep: { note: 'string', ids: ['number', 'boolean', 'null'] },
  ['__proto__']: 'string',
};
const withPause = (ms: string) => ({
  ...plan,
  steps: [...plan.steps, { id: 'pause', action: 'demo.sleep', parameters: { ms }, dependencies: ['a'] }],
});
const finding = (ref: string, kind: string) =>
  `bad_reference [pause]: Step "pause": {{ ${ref} }} is ${kind} but parameters.ms of tool demo.sleep ` +
  "expects a number (as the run's input gives it)";

/** A run of `plan` with this input and config awaiting approval, and its approval link. */
async function awaitingApproval(runInput: unknown, config: Record<string, unknown>) {
  const { run_id: runId } = (await api('POST', '/v1/runs', {
    plan,
    input: runInput,
    config: { require_plan_approval: true, approval: { webhook_url: env.hooks.url }, ...config },
  })) as { run_id: string };
  await waitForStatus(runId, 'awaiting_approval');
  return { runId, link: await env.hooks.approvalLink(runId) };
}

describe("the approval link's Modify checks an edit against the run's input, never showing it", () => {
  it('shows the mismatch as you type, approves the fixed edit, and receives no input value', async () => {
    const { runId, link } = await awaitingApproval(input, {});

    const page = await env.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // Everything the page receives and sends, to look for the input's values in.
    const seen: Promise<string>[] = [];
    page.on('response', (r) => seen.push(r.text().catch(() => '')));
    page.on('request', (r) => seen.push(Promise.resolve(`${r.url()} ${r.postData() ?? ''}`)));
    await page.goto(`${env.server.base}${link.pathname}${link.search}`);
    await page.getByRole('button', { name: 'Modify' }).click();

    // As text: an object handed back from the page loses its "__proto__" key on the way.
    const data = JSON.parse(
      await page.evaluate(() => document.getElementById('edgeplan-data')?.textContent ?? ''),
    ) as Record<string, unknown>;
    const approval = data.approval as Record<string, unknown>;
    expect(approval.input_shape).toEqual(shape);
    expect(Object.hasOwn(approval.input_shape as object, '__proto__')).toBe(true);
    expect('input' in approval).toBe(false);

    const editor = page.locator('.modify textarea');
    const approve = page.getByRole('button', { name: 'Approve modified plan' });
    for (const [ref, kind] of [
      ['input.wait', 'a string'],
      ['input.deep.ids[1]', 'a boolean'],
      ['input.deep', 'an object'],
    ] as const) {
      await editor.fill(JSON.stringify(withPause(`{{ ${ref} }}`), null, 2));
      await page.locator('.modify .findings li', { hasText: `{{ ${ref} }}` }).waitFor({ timeout: 10_000 });
      await expect(page.locator('.modify .findings li').allInnerTexts()).resolves.toEqual([
        finding(ref, kind),
      ]);
      await expect(page.locator('.modify .ok').count()).resolves.toBe(0);
      await expect(approve.isDisabled()).resolves.toBe(true);
    }
    await editor.fill(JSON.stringify(withPause('{{ input.wait }}'), null, 2));
    await page.locator('.modify .findings li', { hasText: '{{ input.wait }}' }).waitFor({ timeout: 10_000 });
    await shot(page, 'link-modify-input-mismatch');
    // What the API says of the same edit with the input itself: the same finding.
    const refused = await api('POST', '/v1/plans/validate', { plan: withPause('{{ input.wait }}'), input });
    expect((refused.errors as { message: string }[]).map((f) => f.message)).toEqual([
      finding('input.wait', 'a string').replace('bad_reference [pause]: ', ''),
    ]);

    await editor.fill(JSON.stringify(withPause('{{ input.deep.ids[0] }}'), null, 2));
    await page.locator('.modify .ok').waitFor({ timeout: 10_000 });
    await expect(page.locator('.modify .findings li').count()).resolves.toBe(0);
    await editor.fill(JSON.stringify(withPause('{{ input.ms }}'), null, 2));
    await page.locator('section.modify button.primary:not([disabled])').waitFor({ timeout: 10_000 });
    await approve.click();
    await page.locator('p.ok[role="status"]').waitFor({ timeout: 15_000 });
    const run = await waitForStatus(runId, 'completed');
    expect([run.plan_version, Object.keys(run.step_results as object).sort()]).toEqual([2, ['a', 'pause']]);

    const texts = await Promise.all(seen);
    expect(texts.length).toBeGreaterThan(3);
    for (const secret of secrets) expect(texts.filter((t) => t.includes(String(secret)))).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);
});

describe("the approval link's Modify checks an edit against the run's limits", () => {
  it('shows a step past the run’s max_steps as a finding, as the API would refuse it', async () => {
    const { link } = await awaitingApproval({ ms: 2 }, { max_steps: 1 });
    const page = await env.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${env.server.base}${link.pathname}${link.search}`);
    await page.getByRole('button', { name: 'Modify' }).click();
    await page.locator('.modify textarea').fill(JSON.stringify(withPause('{{ input.ms }}'), null, 2));
    const limit = page.locator('.modify .findings li', { hasText: 'too_many_steps' });
    await limit.waitFor({ timeout: 10_000 });
    await expect(limit.innerText()).resolves.toBe(
      "too_many_steps: The plan has 2 steps; the limit (max_steps) is 1 (a run's config.max_steps may be up to 100000)",
    );
    await expect(page.getByRole('button', { name: 'Approve modified plan' }).isDisabled()).resolves.toBe(
      true,
    );
    await shot(page, 'link-modify-max-steps');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});

describe("the approval link's Modify does not hold the stand-in's values to the tools", () => {
  it('says ✔ Valid to an edit whose {{ input.… }} the tool constrains: the stand-in is kinds, not values', async () => {
    // method takes one of GET, POST, …: the run's "GET" fits, the page's stand-in ("") would not.
    const { link } = await awaitingApproval({ m: 'GET' }, {});
    const page = await env.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${env.server.base}${link.pathname}${link.search}`);
    await page.getByRole('button', { name: 'Modify' }).click();
    const get = {
      id: 'get',
      action: 'http.request',
      parameters: { url: 'https://example.com', method: '{{ input.m }}' },
      dependencies: ['a'],
    };
    await page
      .locator('.modify textarea')
      .fill(JSON.stringify({ ...plan, steps: [...plan.steps, get] }, null, 2));
    // The edit's own result, not the first plan's: its critical path ends at the added step.
    await page.locator('.modify .plan-editor .ok', { hasText: /Valid.*get/ }).waitFor({ timeout: 10_000 });
    await expect(page.locator('.modify .findings li').count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Approve modified plan' }).isDisabled()).resolves.toBe(
      false,
    );
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
