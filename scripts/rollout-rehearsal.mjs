#!/usr/bin/env node
/**
 * A gradual deployment rehearsed under `wrangler dev` (docs/upgrading.md, "Gradual deployments"), in
 * both directions Cloudflare routes during one: each request to the Worker goes to either version, and
 * each run object runs the version it was assigned, so a Worker of one release calls objects of the
 * other. Two Workers in one `wrangler dev`, sharing D1 and KV (scripts/rollout/configs.mjs): the one
 * in front, named `edgeplan-front`, whose PLAN_RUN binding names the class `PlanRun` of the other,
 * named `edgeplan` as deployed. The phases, in order, on one local state:
 *
 *   split     THIS release's Worker in front of the OLD release's run objects (rollout/forward.mjs,
 *             an answer naming its question: rollout/question-seq.mjs)
 *             then, the same two: a dead-lettered step message (rollout/dead-letter.mjs) and runs
 *             left ended for the front's Cron Trigger, which sweeps them in a start of its own with
 *             RUN_RETENTION_DAYS set (upgrade/retention.mjs)
 *   reverse   the OLD release's Worker in front of THIS release's run objects (rollout/reverse.mjs,
 *             rollout/question-seq.mjs),
 *             then its dead letter and sweep as for split, and revisions awaiting approval, created
 *             by this release's Worker, decided through the old one (rollout/revisions.mjs)
 *   finished  this release alone, as when the rollout ends
 *   back      the old release alone (a rollback), reading what this release wrote
 *
 * Prints one line per check and exits 1 if any failed.
 *
 * Usage, as for scripts/upgrade-rehearsal.mjs (the older release checked out with its dependencies):
 *   node scripts/rollout-rehearsal.mjs --old=/tmp/edgeplan-old [--port=9550] [--only=forward|reverse]
 * `--only=forward`: split, finished and back; `--only=reverse`: reverse alone. The server uses
 * --port, the inspector the port after it, and the approval-webhook receiver the one after that.
 * Not part of `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startDevServer } from './dev-server.mjs';
import { rehearsalApi } from './rehearsal-api.mjs';
import { rolloutConfigs } from './rollout/configs.mjs';
import { deadLetter } from './rollout/dead-letter.mjs';
import { feederConfig } from './rollout/feeder.mjs';
import { back, finished, split } from './rollout/forward.mjs';
import { reverse } from './rollout/reverse.mjs';
import { runFiles } from './rollout/run-files.mjs';
import { rehearsalRuns } from './rollout/runs.mjs';
import { retentionDays, retentionSweep } from './upgrade/retention.mjs';
import { revisionsThroughOldWorker } from './rollout/revisions.mjs';
import { webhookReceiver } from './rollout/loopback.mjs';
import { startScriptedLlm } from '../test/e2e/scripted-llm-server.ts';

const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const oldRoot = arg('old') && resolve(arg('old'));
const only = arg('only');
if (!oldRoot || (only !== undefined && !['forward', 'reverse'].includes(only))) {
  console.error(
    'usage: node scripts/rollout-rehearsal.mjs --old=<checkout of the older release> [--port=9550] [--only=forward|reverse]',
  );
  process.exit(2);
}
const PORT = Number(arg('port') ?? 9550);
const TAG = `ro-${Date.now().toString(36)}`;

const work = mkdtempSync(join(tmpdir(), 'edgeplan-rollout-'));
const persist = join(work, 'state');
/** The retention the sweeps are served with: the runs they sweep are not read meanwhile. */
const RETENTION_S = 30;
// The planner of the side phases' runs (a revision awaiting approval): a scripted model on loopback.
const llm = await startScriptedLlm();
const planner = { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: 'sk-scripted', PLANNER_MODEL: 'scripted-1' };
const configs = {
  ...rolloutConfigs(root, oldRoot),
  ...Object.fromEntries(
    Object.entries(rolloutConfigs(root, oldRoot, planner)).map(([direction, pair]) => [
      `${direction}-side`,
      pair,
    ]),
  ),
  ...Object.fromEntries(
    Object.entries(rolloutConfigs(root, oldRoot, { RUN_RETENTION_DAYS: retentionDays(RETENTION_S) })).map(
      ([direction, pair]) => [`${direction}-sweep`, pair],
    ),
  ),
};
const toml = { feeder: join(work, 'feeder.toml') };
writeFileSync(toml.feeder, feederConfig(work));
for (const [direction, pair] of Object.entries(configs)) {
  for (const [role, text] of Object.entries(pair)) {
    toml[`${direction}.${role}`] = join(work, `${direction}-${role}.toml`);
    writeFileSync(toml[`${direction}.${role}`], text);
  }
}

/** Builds both releases' static assets (the dashboard's bundle), which each front serves. */
function buildAssets() {
  for (const dir of [root, oldRoot]) {
    const r = spawnSync(process.execPath, ['scripts/build-assets.mjs'], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`${dir}: scripts/build-assets.mjs exited with ${r.status}`);
  }
}

function migrate() {
  const r = spawnSync(
    join(root, 'node_modules/.bin/wrangler'),
    ['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persist],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, CI: 'true' } },
  );
  if (r.status !== 0) throw new Error(`wrangler d1 migrations apply exited with ${r.status}`);
}

let server = null;
const api = rehearsalApi(() => server.base);
/** A phase's context: `serve` starts `wrangler dev` with `configs` (none: this release's wrangler.toml). */
const phase = (title, configs) => {
  console.log(`\n${title}`);
  return {
    api,
    runs: rehearsalRuns(api, TAG),
    files: runFiles(persist),
    tag: TAG,
    oldRoot,
    base: () => server.base,
    hookPort: PORT + 2,
    serve: async () => {
      server = await startDevServer({
        name: 'edgeplan-rollout',
        persist,
        port: PORT,
        extraArgs: [...configs.flatMap((c) => ['-c', toml[c]]), '--inspector-port', String(PORT + 1)],
      });
    },
    stop: async () => {
      await server.kill();
      server = null;
    },
  };
};

/**
 * What reaches the front other than by HTTP, with the two releases of `direction`: a dead-lettered
 * step message (the feeder in front sends it), then runs left ended for the front's Cron Trigger,
 * fired in a start of its own with RUN_RETENTION_DAYS set.
 */
async function sidePaths(direction, name) {
  const ctx = phase(`${name}, dead letter and runs for the sweep`, [
    'feeder',
    `${direction}-side.front`,
    `${direction}-side.objects`,
  ]);
  const sweep = retentionSweep(name, api, RETENTION_S);
  await ctx.serve();
  await deadLetter(name, ctx);
  if (direction === 'reverse') {
    const hooks = await webhookReceiver(ctx.hookPort);
    await revisionsThroughOldWorker(ctx, llm, hooks).finally(() => hooks.close());
  }
  await sweep.leave(
    async (body) => (await api.call('POST', '/v1/runs', body)).body.run_id,
    async (path) => (await api.call('GET', path)).body,
  );
  await ctx.stop();
  const swept = phase(`${name}, the front's Cron Trigger with RUN_RETENTION_DAYS`, [
    `${direction}-sweep.front`,
    `${direction}-sweep.objects`,
  ]);
  await swept.serve();
  await sweep.swept(swept.base);
  await swept.stop();
}

try {
  buildAssets();
  migrate();
  const forward = only !== 'reverse';
  const left =
    forward &&
    (await split(
      phase(`split: ${root} in front of ${oldRoot}'s run objects`, ['forward.front', 'forward.objects']),
    ));
  if (forward) await sidePaths('forward', 'split');
  if (only !== 'forward') {
    const ctx = phase(`reverse: ${oldRoot} in front of ${root}'s run objects`, [
      'reverse.front',
      'reverse.objects',
    ]);
    await ctx.serve();
    await reverse(ctx);
    await ctx.stop();
    await sidePaths('reverse', 'reverse');
  }
  if (forward) {
    const answered = await finished(phase(`finished: ${root} alone`, []), left);
    await back(phase(`back: ${oldRoot} alone`, ['forward.objects']), { ...left, ...answered });
  }
} catch (err) {
  api.fail(err);
} finally {
  if (server) await server.kill();
  await llm.close();
  rmSync(work, { recursive: true, force: true });
}
process.exit(api.report());
