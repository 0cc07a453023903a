#!/usr/bin/env node
/**
 * A gradual deployment rehearsed under `wrangler dev` (docs/upgrading.md, "Gradual deployments"):
 * THIS release's Worker in front of run objects still on the OLD release — what Cloudflare does to an
 * object assigned the old version while the Worker that calls it runs the new one. Two Workers in one
 * `wrangler dev`: this release's, named `edgeplan-front`, whose PLAN_RUN binding names the class
 * `PlanRun` of the other — the old release's own code, named `edgeplan` as deployed — sharing D1 and
 * KV. Then the rollout finishes: this release alone, as `edgeplan`, on the same local state, so the
 * objects the old code held now run this release's.
 *
 *   split     a run with approval.revisions "ask" is refused with 503 deploy_in_progress and removed
 *             (no key, and with an Idempotency-Key, sent twice); a run without "ask" is created by
 *             the old object and runs to completion through this release's queue consumer
 *             a human.input step answered through this release's Worker with an `approver` (a third
 *             argument of the object's `input`, which the old object ignores): taken, the run completes;
 *             /events and /wait of a run on the old object, whose object has no `progress()`
 *   finished  the keyed request creates its run (201), stored in format 2; sent again, it is replayed;
 *             a question answered with an `approver` records it on InputReceived as `answered_by`
 *   back      the old release alone (a rollback) reads that run: its snapshot, its events with the
 *             key it does not know kept as stored, and its state replayed to the answer
 *
 * That the objects ran the old code is what the first check shows: this release's object would have
 * confirmed the format and created the run. Prints one line per check and exits 1 if any failed.
 *
 * Usage, as for scripts/upgrade-rehearsal.mjs (the older release checked out with its dependencies):
 *   node scripts/rollout-rehearsal.mjs --old=/tmp/edgeplan-old [--port=9550]
 * The server uses --port and the inspector the port after it. Not part of `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { startDevServer } from './dev-server.mjs';
import { rehearsalApi } from './rehearsal-api.mjs';

const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const oldRoot = arg('old') && resolve(arg('old'));
if (!oldRoot) {
  console.error(
    'usage: node scripts/rollout-rehearsal.mjs --old=<checkout of the older release> [--port=9550]',
  );
  process.exit(2);
}
const PORT = Number(arg('port') ?? 9550);
const TAG = `ro-${Date.now().toString(36)}`;

// ---- the two Workers' configs ------------------------------------------------------------------

const D1 = (dir) => `[[d1_databases]]
binding = "DB"
database_name = "edgeplan"
database_id = "00000000-0000-0000-0000-000000000000"
migrations_dir = "${dir}/migrations"

[[kv_namespaces]]
binding = "KV"
id = "00000000000000000000000000000000"
`;
const ALIASES = (dir) => `[alias]
"ajv" = "${dir}/src/mcp/ajv-stub.ts"
"ajv-formats" = "${dir}/src/mcp/ajv-stub.ts"
"zod" = "${dir}/src/zod-english/index.ts"
`;
const HEAD = (name, dir) => `name = "${name}"
main = "${dir}/src/worker.ts"
compatibility_date = "2026-11-01"
compatibility_flags = ["nodejs_compat"]

[vars]
DEMO_TOOLS = "true"
ALLOW_ANONYMOUS = "true"
`;
/** This release in front: its own consumers, the old Worker's run objects. */
const FRONT = `${HEAD('edgeplan-front', root)}
[[durable_objects.bindings]]
name = "PLAN_RUN"
class_name = "PlanRun"
script_name = "edgeplan"

[[durable_objects.bindings]]
name = "COUNTERS"
class_name = "DemoCounters"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["PlanRun", "DemoCounters"]

[[queues.producers]]
queue = "steps"
binding = "STEPS"

[[queues.consumers]]
queue = "steps"
max_batch_size = 100
max_batch_timeout = 0
max_retries = 10
dead_letter_queue = "steps-dlq"

[[queues.consumers]]
queue = "steps-dlq"
max_batch_size = 100
max_retries = 3

${D1(root)}
${ALIASES(root)}`;
/** The old release's Worker, whose objects the front calls; it sends steps, the front consumes them. */
const OLD = `${HEAD('edgeplan', oldRoot)}
[[durable_objects.bindings]]
name = "PLAN_RUN"
class_name = "PlanRun"

[[durable_objects.bindings]]
name = "COUNTERS"
class_name = "DemoCounters"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["PlanRun", "DemoCounters"]

[[queues.producers]]
queue = "steps"
binding = "STEPS"

${D1(oldRoot)}
${ALIASES(oldRoot)}`;

const work = mkdtempSync(join(tmpdir(), 'edgeplan-rollout-'));
const persist = join(work, 'state');
writeFileSync(join(work, 'front.toml'), FRONT);
writeFileSync(join(work, 'old.toml'), OLD);

function migrate() {
  const r = spawnSync(
    join(root, 'node_modules/.bin/wrangler'),
    ['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persist],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, CI: 'true' } },
  );
  if (r.status !== 0) throw new Error(`wrangler d1 migrations apply exited with ${r.status}`);
}

// ---- the API and checks --------------------------------------------------------------------------

let server = null;
const { call, until, check, fail, report } = rehearsalApi(() => server.base);

const plan = (id) => ({ steps: [{ id, action: 'demo.counter', parameters: { key: `${TAG}-${id}` } }] });
const question = (id) => ({ steps: [{ id, action: 'human.input', parameters: { prompt: `${id}?` } }] });
const runOf = async (id) => (await call('GET', `/v1/runs/${id}`)).body;
const ENDED = ['completed', 'failed', 'aborted', 'cancelled'];
/** Starts a run of one question, answers it with `approver` once asked, and waits for its end. */
async function answered(id) {
  const started = await call('POST', '/v1/runs', { plan: question(id) });
  const runId = started.body.run_id;
  await until(
    `run ${runId}`,
    () => runOf(runId),
    (r) => r.status === 'awaiting_input',
  );
  const sent = await call('POST', `/v1/runs/${runId}/input`, { input: 'yes', step_id: id, approver: 'Ada' });
  const done = await until(
    `run ${runId}`,
    () => runOf(runId),
    (r) => ENDED.includes(r.status),
  );
  return { runId, sent, done };
}
const ASK = { require_plan_approval: true, approval: { revisions: 'ask' } };
const refusedAsRollingOut = (name, r) => {
  check(
    `${name}: 503 deploy_in_progress, Retry-After 60`,
    r.status === 503 && r.body.error?.code === 'deploy_in_progress' && r.headers.get('retry-after') === '60',
    `${r.status} ${r.body.error?.code ?? JSON.stringify(r.body).slice(0, 200)}`,
  );
  return r.body.error?.details?.run_id;
};

/**
 * `read(db)` on the SQLite file of run `runId`'s object (`wrangler dev`'s state), found by its first
 * event; undefined when no file holds the run.
 */
function readRunFile(runId, read) {
  const dir = join(persist, 'v3', 'do', 'edgeplan-PlanRun');
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.sqlite'))) {
    const db = new DatabaseSync(join(dir, f));
    try {
      const created = db.prepare('SELECT count(*) AS n FROM events WHERE seq = 1 AND body LIKE ?');
      if (created.get(`%"${runId}"%`).n === 0) continue;
      return read(db);
    } catch {
      // not a run's file (a demo counter's, or one without tables)
    } finally {
      db.close();
    }
  }
  return undefined;
}

/** The payload of run `runId`'s first stored `type` event, as its object wrote it, whichever release serves the run. */
const storedPayload = (runId, type) =>
  readRunFile(runId, (db) => {
    const row = db.prepare('SELECT body FROM events WHERE body LIKE ? ORDER BY seq LIMIT 1');
    const body = row.get(`%"event_type":"${type}"%`)?.body;
    return body === undefined ? undefined : JSON.parse(body).payload;
  });

/** The storage format stamped in run `runId`'s object. */
const stampOf = (runId) =>
  readRunFile(
    runId,
    (db) => db.prepare("SELECT value FROM meta WHERE key = 'storage_format'").get()?.value ?? null,
  );

// ---- split: this release's Worker, the old release's objects --------------------------------------

const key = `${TAG}-key`;
let keyedRun;
try {
  migrate();
  console.log(`\nsplit: ${root} in front of ${oldRoot}'s run objects`);
  server = await startDevServer({
    name: 'edgeplan-rollout',
    persist,
    port: PORT,
    extraArgs: [
      '-c',
      join(work, 'front.toml'),
      '-c',
      join(work, 'old.toml'),
      '--inspector-port',
      String(PORT + 1),
    ],
  });
  const plain = await call('POST', '/v1/runs', { plan: plan('a'), config: ASK });
  const removed = refusedAsRollingOut('split "ask" without a key', plain);
  check(
    'split "ask" without a key: the run is gone',
    (await call('GET', `/v1/runs/${removed}`)).status === 404,
  );
  const listed = await call('GET', '/v1/runs?limit=100');
  check(
    'split "ask" without a key: not in the run list',
    listed.status === 200 &&
      Array.isArray(listed.body.runs) &&
      !listed.body.runs.some((r) => r.run_id === removed),
  );

  const first = await call('POST', '/v1/runs', { plan: plan('k'), config: ASK }, { 'Idempotency-Key': key });
  keyedRun = refusedAsRollingOut('split "ask" with a key', first);
  const again = await call('POST', '/v1/runs', { plan: plan('k'), config: ASK }, { 'Idempotency-Key': key });
  refusedAsRollingOut('split "ask" with a key, sent again', again);
  check(
    'split "ask" with a key: the run is gone',
    (await call('GET', `/v1/runs/${keyedRun}`)).status === 404,
  );

  const asked = await call('POST', '/v1/runs', {
    plan: plan('once'),
    config: { require_plan_approval: true },
  });
  check('split without "ask": created by the old object', asked.status === 201, `${asked.status}`);
  const id = asked.body.run_id;
  await until(
    `run ${id}`,
    async () => (await call('GET', `/v1/runs/${id}`)).body,
    (r) => r.status === 'awaiting_approval',
  );
  const approved = await call('POST', `/v1/runs/${id}/approval`, { decision: 'approve' });
  check('split without "ask": approved', approved.status === 200, `${approved.status}`);
  const done = await until(
    `run ${id}`,
    async () => (await call('GET', `/v1/runs/${id}`)).body,
    (r) => ['completed', 'failed', 'aborted', 'cancelled'].includes(r.status),
  );
  check(
    'split without "ask": completed through this release’s consumer, counted once',
    done.status === 'completed' && done.step_results?.once?.value === 1,
    `${done.status} ${JSON.stringify(done.step_results ?? {})}`,
  );
  const old = await answered('asked_old');
  check(
    'split: an answer with an approver, sent to the old object, taken; the run completes',
    old.sent.status === 200 && old.done.status === 'completed' && old.done.step_results?.asked_old === 'yes',
    `${old.sent.status} ${old.done.status}`,
  );
  // This release's reads that ask an object for progress(), which the old release's does not have:
  // read through its snapshot instead, not a 500.
  const page = await call('GET', `/v1/runs/${id}/events?after=1`);
  check(
    'split: GET /events?after=1 of a run on the old object answers its events',
    page.status === 200 && Array.isArray(page.body.events) && page.body.events[0]?.seq === 2,
    `${page.status} ${JSON.stringify(page.body).slice(0, 200)}`,
  );
  const past = await call('GET', `/v1/runs/${id}/events?after=100000`);
  check(
    'split: GET /events with an after past its last event is 400 with last_seq',
    past.status === 400 && past.body.error?.details?.last_seq === done.last_seq,
    `${past.status} ${JSON.stringify(past.body).slice(0, 200)}`,
  );
  const waited = await call('GET', `/v1/runs/${id}/wait?until=terminal&timeout_s=5`);
  check(
    'split: GET /wait of an ended run on the old object answers it at once',
    waited.status === 200 && waited.body.timed_out === false && waited.body.run?.status === 'completed',
    `${waited.status} ${JSON.stringify(waited.body).slice(0, 200)}`,
  );
  await server.kill();
  const oldAnswer = storedPayload(old.runId, 'InputReceived');
  check(
    'split: the old object records the answer without who answered (it does not know answered_by)',
    oldAnswer?.input === 'yes' && oldAnswer?.answered_by === undefined,
    JSON.stringify(oldAnswer),
  );

  // ---- finished: this release alone, on the same state ---------------------------------------------

  console.log(`\nfinished: ${root} alone`);
  server = await startDevServer({
    name: 'edgeplan-rollout',
    persist,
    port: PORT,
    extraArgs: ['--inspector-port', String(PORT + 1)],
  });
  const created = await call(
    'POST',
    '/v1/runs',
    { plan: plan('k'), config: ASK },
    { 'Idempotency-Key': key },
  );
  check(
    'finished "ask" with the key: created, under the key’s run id',
    created.status === 201 && created.body.run_id === keyedRun && created.body.status === 'awaiting_approval',
    `${created.status} ${JSON.stringify(created.body).slice(0, 200)}`,
  );
  const replayed = await call(
    'POST',
    '/v1/runs',
    { plan: plan('k'), config: ASK },
    { 'Idempotency-Key': key },
  );
  check(
    'finished "ask" with the key: sent again, replayed',
    replayed.status === 201 && replayed.headers.get('idempotent-replayed') === 'true',
    `${replayed.status}`,
  );
  check(
    'finished "ask" without a key: the removed run stays gone',
    (await call('GET', `/v1/runs/${removed}`)).status === 404,
  );
  const fresh = await answered('asked_new');
  const recorded = (await call('GET', `/v1/runs/${fresh.runId}/events`)).body.events?.find(
    (e) => e.event_type === 'InputReceived',
  );
  check(
    'finished: an answer with an approver records it as answered_by',
    fresh.done.status === 'completed' && recorded?.payload?.answered_by === 'Ada',
    JSON.stringify(recorded?.payload),
  );
  await server.kill();

  // ---- back: the old release alone (a rollback) reads what this release wrote ----------------------

  console.log(`\nback: ${oldRoot} alone`);
  server = await startDevServer({
    name: 'edgeplan-rollout',
    persist,
    port: PORT,
    extraArgs: ['-c', join(work, 'old.toml'), '--inspector-port', String(PORT + 1)],
  });
  const back = await call('GET', `/v1/runs/${fresh.runId}`);
  check(
    'back: the old release serves the run answered with answered_by',
    back.status === 200 && back.body.status === 'completed' && back.body.step_results?.asked_new === 'yes',
    `${back.status} ${back.body.status ?? JSON.stringify(back.body).slice(0, 200)}`,
  );
  const backEvents = await call('GET', `/v1/runs/${fresh.runId}/events`);
  const kept = (backEvents.body.events ?? []).find((e) => e.event_type === 'InputReceived');
  check(
    'back: its events, answered_by kept as stored',
    backEvents.status === 200 && kept?.payload?.answered_by === 'Ada',
    `${backEvents.status} ${JSON.stringify(kept?.payload)}`,
  );
  const replay = await call('GET', `/v1/runs/${fresh.runId}/state?at=${kept?.seq ?? 1}`);
  check(
    'back: its state replayed through the answer',
    replay.status === 200,
    `${replay.status} ${JSON.stringify(replay.body).slice(0, 200)}`,
  );
  await server.kill();
  server = null;
  check(
    'finished "ask" with the key: stored in format 2',
    stampOf(keyedRun) === '2',
    String(stampOf(keyedRun)),
  );
} catch (err) {
  fail(err);
} finally {
  if (server) await server.kill();
  rmSync(work, { recursive: true, force: true });
}
process.exit(report());
