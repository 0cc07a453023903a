#!/usr/bin/env node
/**
 * A deploy and a rollback rehearsed under `wrangler dev` (docs/upgrading.md, "Before a deploy"): runs
 * are left in every long-lived state by one release, its whole process group is killed, and the other
 * release is started on the same local state and port to carry them on.
 *
 *   forward   the OLD release creates runs — awaiting approval (webhook sent), awaiting input, waiting
 *             for a retry, a step running on the queue, a parent waiting on its child, a goal being
 *             planned — and THIS release drives each to completion.
 *   back      THIS release creates runs in the states it added — a revision awaiting its approval
 *             (approval.revisions: "ask"), a run created with an Idempotency-Key — and the OLD release
 *             serves them.
 *
 * Each run must end as promised, no attempt invoked or returned twice, no counter counted twice, the
 * event log gap-free and served. Prints one line per check and exits 1 if any failed.
 *
 * Across both switches, too, what is not a run's own state (scripts/upgrade/): the dashboard in
 * chromium — tabs left open across the switch, acted from, and the other release's runs read
 * (dashboard.mjs); an MCP server a run's steps call, and an agent's /mcp session (mcp.mjs, forward);
 * the retention sweep of runs the other release ended (retention.mjs); and a revision awaiting
 * approval rejected or edited (revisions.mjs, back).
 *
 * Usage: the older release checked out with its dependencies, then this script from this checkout:
 *   git worktree add /tmp/edgeplan-old <release> && (cd /tmp/edgeplan-old && npm ci)
 *   npm run rehearse:upgrade -- --old=/tmp/edgeplan-old [--port=9600] [--only=forward|back]
 * (npm puts the project's own Node first on PATH: the scripted model server is TypeScript, which
 * Node 22.18 and later run as it is.)
 * The server uses --port and the inspector the port after it. About five minutes on 2 busy cores
 * (two of them waiting for the runs the sweeps delete to be past their retention).
 * Not part of `npm test`: it needs a second checkout of another commit and its `npm ci`.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startDevServer } from './dev-server.mjs';
import { rehearsalApi } from './rehearsal-api.mjs';
import { startScriptedLlm } from '../test/e2e/scripted-llm-server.ts';
import { dashboardRuns, newDashboard, newerFormatTab, openTabs } from './upgrade/dashboard.mjs';
import { mcpAcrossDeploy } from './upgrade/mcp.mjs';
import { retentionSweep } from './upgrade/retention.mjs';
import { pendingRevisions } from './upgrade/revisions.mjs';

const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const root = new URL('..', import.meta.url).pathname;
const oldRoot = arg('old') && resolve(arg('old'));
const only = arg('only');
// A misspelt --only (`backward`) would otherwise run both directions as if it were not given.
if (!oldRoot || (only !== undefined && only !== 'forward' && only !== 'back')) {
  console.error(
    'usage: npm run rehearse:upgrade -- --old=<checkout of the older release> [--port=9600] [--only=forward|back]',
  );
  process.exit(2);
}
const PORT = Number(arg('port') ?? 9600);
const TAG = `up-${Date.now().toString(36)}`;

// ---- loopback servers: the scripted model and the approval-webhook receiver (outlive the kills) ----

const llm = await startScriptedLlm();
let releasePlanning = () => {};
const planningHeld = new Promise((r) => (releasePlanning = r));

const deliveries = [];
const hooks = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    deliveries.push(JSON.parse(body));
    res.end('ok');
  });
});
await new Promise((r) => hooks.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${hooks.address().port}/hook`;

const ARGS = [
  ...['--inspector-port', String(PORT + 1), '--log-level', 'error'],
  ...['--var', 'HTTP_ALLOWLIST:127.0.0.1', '--var', `OPENAI_BASE_URL:${llm.url}`],
  ...['--var', 'OPENAI_API_KEY:sk-scripted', '--var', 'PLANNER_MODEL:scripted-1'],
  ...['--var', 'WEBHOOK_SECRET:whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ='],
];

/** Applies `cwd`'s D1 migrations to the local state in `persist`, as a deploy does before its code. */
function migrate(cwd, persist) {
  const r = spawnSync(
    join(root, 'node_modules/.bin/wrangler'),
    ['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persist],
    { cwd, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, CI: 'true' } },
  );
  if (r.status !== 0) throw new Error(`wrangler d1 migrations apply (${cwd}) exited with ${r.status}`);
}

let server = null;
/** `vars`: more `wrangler dev` arguments (MCP_SERVERS, RUN_RETENTION_DAYS) for this start. */
async function serve(cwd, persist, vars = []) {
  migrate(cwd, persist);
  server = await startDevServer({
    name: 'edgeplan-upgrade',
    cwd,
    persist,
    port: PORT,
    extraArgs: [...ARGS, ...vars],
  });
  return server;
}

// ---- the API ------------------------------------------------------------------------------------

const { call, until, check, fail, report } = rehearsalApi(() => server.base, { waitMs: 90_000 });
const get = async (path) => (await call('GET', path)).body;
async function create(body, headers) {
  const r = await call('POST', '/v1/runs', body, headers);
  if (r.status !== 201) throw new Error(`POST /v1/runs: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.run_id;
}
const TERMINAL = ['completed', 'failed', 'aborted', 'cancelled'];
const status = (id, pred) => until(`run ${id}`, () => get(`/v1/runs/${id}`), pred);
const ended = (id) => status(id, (r) => TERMINAL.includes(r.status));
const eventsOf = async (id) => (await get(`/v1/runs/${id}/events?limit=1000`)).events ?? [];

// ---- checks -------------------------------------------------------------------------------------

/** Nothing ran twice, nothing lost: a gap-free log, each attempt invoked and returned once. */
async function once(name, id) {
  const events = await eventsOf(id);
  const seqs = events.map((e) => e.seq);
  check(`${name}: event log gap-free and served`, seqs.length > 0 && seqs.every((s, i) => s === i + 1));
  for (const type of ['ToolInvoked', 'ToolReturned']) {
    const keys = events
      .filter((e) => e.event_type === type)
      .map((e) => `${e.payload.step_id}#${e.payload.attempt}`);
    check(`${name}: no ${type} twice`, keys.length === new Set(keys).size, keys.join(' '));
  }
  return events;
}
const counterSteps = (run) =>
  Object.entries(run.step_results ?? {}).filter(([, v]) => v && typeof v === 'object' && 'key' in v);
function countedOnce(name, run) {
  const counted = counterSteps(run);
  check(
    `${name}: each counter counted once`,
    counted.length > 0 && counted.every(([, v]) => v.value === 1),
    counted.map(([k, v]) => `${k}=${v.value}`).join(' '),
  );
}
const counter = (id, deps = []) => ({
  id,
  action: 'demo.counter',
  parameters: { key: `${TAG}-${id}` },
  dependencies: deps,
});
const echo = (id, deps = []) => ({ id, action: 'demo.echo', parameters: { id }, dependencies: deps });

// ---- forward: the old release leaves runs, this one carries them on ----------------------------------

async function forward() {
  console.log(`\nforward: ${oldRoot} creates, ${root} carries on`);
  const persist = mkdtempSync(join(tmpdir(), 'edgeplan-upgrade-'));
  const runs = {};
  const mcp = await mcpAcrossDeploy(TAG);
  const sweep = retentionSweep('forward', { call, check, until });
  let tabs = null;
  try {
    await serve(oldRoot, persist, mcp.vars);
    // First what takes its time (a browser, its pages): the runs after it are timed to the deploy.
    const dash = await dashboardRuns({ create, call, until });
    await mcp.begin(() => server.base, create);
    await sweep.leave(create, get);
    await until(
      'the MCP runs at rest',
      () => mcp.ready(get),
      (ready) => ready,
    );
    tabs = await openTabs(() => server.base, dash, call, check);
    runs.approval = await create({
      plan: { steps: [counter('fa-go')] },
      config: { require_plan_approval: true, approval: { webhook_url: hookUrl, timeout_s: 3600 } },
    });
    runs.input = await create({
      plan: {
        steps: [
          { id: 'ask', action: 'human.input', parameters: { prompt: 'Go on?' } },
          counter('fi-go', ['ask']),
        ],
      },
    });
    runs.retry = await create({
      plan: {
        steps: [
          { id: 'f', action: 'demo.flaky', parameters: { key: `${TAG}-fr`, fail_times: 1 } },
          counter('fr-after', ['f']),
        ],
      },
      config: { retry_failed_steps: 2, retry_delay: 20 },
    });
    runs.queue = await create({
      plan: {
        steps: [
          { id: 'slow', action: 'demo.sleep', parameters: { ms: 6000, value: 'slept' } },
          counter('fq-after', ['slow']),
        ],
      },
      config: { placement: 'queue' },
    });
    runs.parent = await create({
      plan: {
        steps: [
          {
            id: 'child',
            action: 'plan.execute',
            parameters: {
              plan: {
                steps: [
                  { id: 'ask', action: 'human.input', parameters: { prompt: 'Child go on?' } },
                  counter('fc-count', ['ask']),
                ],
              },
            },
          },
          counter('fc-after', ['child']),
        ],
      },
    });
    const plan = JSON.stringify({ steps: [counter('fp-a'), echo('b', ['fp-a'])] });
    llm.script(`${TAG}-plan`, [{ pieces: [plan.slice(0, 10), plan.slice(10)], held: planningHeld }, plan]);
    runs.planning = await create({ goal: `count then echo (${TAG}-plan)` });
    await until(
      'every run at its deploy point',
      async () => ({
        approval: deliveries.filter((d) => d.run_id === runs.approval).length,
        input: (await get(`/v1/runs/${runs.input}`)).status,
        retry: (await eventsOf(runs.retry)).some((e) => e.event_type === 'StepRetried'),
        queue: (await get(`/v1/runs/${runs.queue}`)).step_statuses?.slow,
        parent: (await get(`/v1/runs/${runs.parent}`)).step_statuses?.child,
        planning: llm.calls.filter((c) => c.tag === `${TAG}-plan`).length,
      }),
      (s) =>
        s.approval === 1 &&
        s.input === 'awaiting_input' &&
        s.retry &&
        s.queue === 'running' &&
        s.parent === 'running' &&
        s.planning === 1,
    );
    await server.kill();
    releasePlanning();
    await serve(root, persist, [...mcp.vars, ...sweep.vars]);
    await tabs.act();
    tabs = null;
    await newDashboard(() => server.base, [...dash.ended, runs.approval], call, check);

    const link = new URL(deliveries.find((d) => d.run_id === runs.approval).approval_url);
    const approved = await call('POST', `${link.pathname}${link.search}`, { decision: 'approve' });
    check('forward approval: the old release’s webhook link approves under the new', approved.status === 200);
    let run = await ended(runs.approval);
    check('forward approval: completed', run.status === 'completed', run.status);
    countedOnce('forward approval', run);
    await once('forward approval', runs.approval);

    const answered = await call('POST', `/v1/runs/${runs.input}/input`, { input: 'yes', step_id: 'ask' });
    check('forward input: answered', answered.status === 200, String(answered.status));
    run = await ended(runs.input);
    check('forward input: completed', run.status === 'completed', run.status);
    countedOnce('forward input', run);
    await once('forward input', runs.input);

    run = await ended(runs.retry);
    check('forward retry: completed by the retry', run.status === 'completed', run.status);
    countedOnce('forward retry', run);
    const retried = await once('forward retry', runs.retry);
    const fInvoked = retried.filter((e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 'f');
    check(
      'forward retry: f invoked as attempts 1 and 2',
      fInvoked.map((e) => e.payload.attempt).join() === '1,2',
    );

    run = await ended(runs.queue);
    check('forward queue: completed', run.status === 'completed', run.status);
    countedOnce('forward queue', run);
    await once('forward queue', runs.queue);

    const childId = await until(
      'the child run in the index',
      async () => (await get(`/v1/runs?parent_run_id=${runs.parent}`)).runs?.[0]?.run_id ?? null,
      (v) => v !== null,
    ).catch(() => null);
    check('forward child: the child run found', childId !== null, String(childId));
    if (childId) {
      const r = await call('POST', `/v1/runs/${childId}/input`, { input: 'yes', step_id: 'ask' });
      check(
        'forward child: child answered',
        r.status === 200,
        `${r.status} ${JSON.stringify(r.body).slice(0, 200)}`,
      );
      const c = await ended(childId);
      check('forward child: child completed', c.status === 'completed', c.status);
      await once('forward child (child)', childId);
    }
    run = await ended(runs.parent);
    check('forward child: parent completed', run.status === 'completed', run.status);
    check(
      'forward child: child step ran once',
      run.steps?.child?.attempts === 1,
      String(run.steps?.child?.attempts),
    );
    await once('forward child (parent)', runs.parent);

    run = await ended(runs.planning);
    check('forward planning: planned again and completed', run.status === 'completed', run.status);
    countedOnce('forward planning', run);
    const planned = await once('forward planning', runs.planning);
    check(
      'forward planning: one plan authored',
      planned.filter((e) => e.event_type === 'PlanAuthored').length === 1,
    );

    await mcp.finish({ call, check, ended });
    await sweep.swept(() => server.base);
  } finally {
    await tabs?.close();
    await mcp.close();
    await server?.kill();
    rmSync(persist, { recursive: true, force: true });
  }
}

// ---- back: this release leaves runs in its new states, the old one serves them ----------------------

async function back() {
  console.log(`\nback: ${root} creates, ${oldRoot} serves`);
  const persist = mkdtempSync(join(tmpdir(), 'edgeplan-upgrade-'));
  const runs = {};
  const flaky = (id) => ({
    id,
    action: 'demo.flaky',
    parameters: { key: `${TAG}-${id}`, fail_times: 99, permanent: true },
    dependencies: ['a'],
  });
  const sweep = retentionSweep('back', { call, check, until });
  let tabs = null;
  let newer = null;
  const revisions = pendingRevisions(TAG, {
    ...{ llm, call, check, until, create, ended, hookUrl, deliveries, once },
  });
  try {
    await serve(root, persist);
    await revisions.leave();
    await sweep.leave(create, get, { formatTwo: true });
    // v1 fails at `parse`; the planner's v2 waits for its approval; v2 fails at `parse2` in turn, and
    // v3 would follow — asked for under this release.
    llm.script(`${TAG}-revise`, [
      JSON.stringify({ steps: [counter('a'), flaky('parse')] }),
      JSON.stringify({ steps: [counter('a'), flaky('parse2')] }),
      JSON.stringify({ steps: [counter('a'), echo('parse3', ['a'])] }),
    ]);
    runs.revision = await create({
      goal: `count and parse (${TAG}-revise)`,
      config: {
        execution_mode: 'sequential',
        require_plan_approval: true,
        approval: { webhook_url: hookUrl, revisions: 'ask', timeout_s: 3600 },
      },
    });
    await status(runs.revision, (r) => r.status === 'awaiting_approval');
    await call('POST', `/v1/runs/${runs.revision}/approval`, { decision: 'approve', comment: 'v1 ok' });
    await status(runs.revision, (r) => r.status === 'awaiting_approval' && r.plan_version === 2);
    const key = `${TAG}-idem`;
    const idemBody = {
      plan: { steps: [counter('bi-go')] },
      config: { require_plan_approval: true, approval: { timeout_s: 3600 } },
    };
    runs.idem = await create(idemBody, { 'Idempotency-Key': key });
    // This release's dashboard open across the rollback: tabs to act from, one on the format-2 run.
    tabs = await openTabs(
      () => server.base,
      await dashboardRuns({ create, call, until }),
      call,
      check,
      'back',
    );
    newer = await newerFormatTab(() => server.base, runs.revision, check);
    await server.kill();
    await serve(oldRoot, persist, sweep.vars);
    await tabs.act();
    tabs = null;
    await newer.after();
    newer = null;
    await revisions.refused();

    const r = await call('GET', `/v1/runs/${runs.revision}`);
    console.log(
      `     back revision: GET under the old release → ${r.status} ${r.body.status ?? r.body.error?.code ?? ''}`,
    );
    if (r.status === 503) {
      check(
        'back revision: refused as run_newer_format, nothing written',
        r.body.error?.code === 'run_newer_format',
      );
      const approve = await call('POST', `/v1/runs/${runs.revision}/approval`, { decision: 'approve' });
      check('back revision: its approval refused too (503)', approve.status === 503, String(approve.status));
    } else {
      check(
        'back revision: the old release reads it awaiting approval of v2',
        r.body.status === 'awaiting_approval' && r.body.plan_version === 2,
        `${r.body.status} v${r.body.plan_version}`,
      );
      const approve = await call('POST', `/v1/runs/${runs.revision}/approval`, {
        decision: 'approve',
        comment: 'v2 ok',
      });
      check(
        'back revision: v2 approved under the old release',
        approve.status === 200,
        String(approve.status),
      );
      const run = await ended(runs.revision).catch(async () => get(`/v1/runs/${runs.revision}`));
      const events = await once('back revision', runs.revision);
      const asked = events
        .filter((e) => e.event_type === 'ApprovalRequested')
        .map((e) => e.payload.plan_version);
      const versions = events
        .filter((e) => e.event_type === 'PlanUpdated')
        .map((e) => e.payload.plan.version);
      console.log(
        `     back revision: ended ${run.status} at v${run.plan_version}; versions written ${versions.join(',')}; approval asked for ${asked.join(',')}`,
      );
      check(
        'back revision: no plan version ran without its approval',
        versions.every((v) => asked.includes(v)),
        `asked ${asked.join(',')} written ${versions.join(',')}`,
      );
    }
    const i = await call('GET', `/v1/runs/${runs.idem}`);
    console.log(
      `     back idempotent: GET under the old release → ${i.status} ${i.body.status ?? i.body.error?.code ?? ''}`,
    );
    if (i.status === 200) {
      const again = await call('POST', '/v1/runs', idemBody, { 'Idempotency-Key': key });
      if (again.body.run_id === runs.idem)
        check('back idempotent: the same key again answers the same run', true);
      else {
        // A release from before the header ignores it: the retry is a run of its own (docs/upgrading.md).
        console.log(
          `note back idempotent: the older release ignores Idempotency-Key — the retry started ${again.body.run_id}`,
        );
        await call('POST', `/v1/runs/${again.body.run_id}/cancel`, {});
      }
      await call('POST', `/v1/runs/${runs.idem}/approval`, { decision: 'approve' });
      const run = await ended(runs.idem);
      check('back idempotent: completed under the old release', run.status === 'completed', run.status);
      countedOnce('back idempotent', run);
      await once('back idempotent', runs.idem);
    }
    await sweep.swept(() => server.base);
    // The new release back: whatever waited carries on.
    await server.kill();
    await serve(root, persist);
    await revisions.decided();
    const now = await get(`/v1/runs/${runs.revision}`);
    console.log(`     back revision: under the new release again → ${now.status} v${now.plan_version}`);
    if (now.status === 'awaiting_approval') {
      await call('POST', `/v1/runs/${runs.revision}/approval`, { decision: 'approve', comment: 'v2 ok' });
      await status(runs.revision, (x) => x.status === 'awaiting_approval' && x.plan_version === 3);
      await call('POST', `/v1/runs/${runs.revision}/approval`, { decision: 'approve', comment: 'v3 ok' });
      const run = await ended(runs.revision);
      check(
        'back revision: completed once the new release is back, every version approved',
        run.status === 'completed',
        run.status,
      );
      countedOnce('back revision', run);
      await once('back revision (new again)', runs.revision);
    }
  } finally {
    await tabs?.close();
    await newer?.close();
    await server?.kill();
    rmSync(persist, { recursive: true, force: true });
  }
}

try {
  if (only !== 'back') await forward();
  if (only !== 'forward') await back();
} catch (err) {
  fail(err);
} finally {
  await llm.close();
  hooks.close();
}
process.exit(report());
