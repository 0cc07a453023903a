#!/usr/bin/env node
/**
 * `npm run deploy`: creates what the Worker needs and is missing, by name — the D1 database, the KV
 * namespace, the queues (`steps`, `steps-dlq`) — writes their ids into wrangler.deploy.toml (a copy of
 * wrangler.toml; the committed file keeps its placeholder ids, so local dev and the tests are
 * untouched), applies the D1 migrations remotely, and deploys. Running it again creates nothing.
 *
 * It calls `wrangler` from PATH (`npm run` puts the project's first). Arguments go to
 * `wrangler deploy`. With `--dry-run` (`npm run deploy -- --dry-run --outdir /tmp/x`) nothing is
 * created, migrated or uploaded, and no account is needed: only the bundle is built, from
 * wrangler.toml.
 * @example
 * npx wrangler login && npm run deploy
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { d1Id, deployConfig, kvId, queueNames, wantedResources } from './deploy/config.mjs';

export const DEPLOY_CONFIG = 'wrangler.deploy.toml';

/** Runs wrangler; `capture` returns its stdout, otherwise its output goes to ours. Throws on failure. */
function wrangler(args, { capture = false } = {}) {
  console.error(`$ wrangler ${args.join(' ')}`);
  const r = spawnSync('wrangler', args, {
    stdio: capture ? ['inherit', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  if (r.error) throw new Error(`wrangler could not be started: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`wrangler ${args.join(' ')} exited with ${r.status}`);
  return r.stdout ?? '';
}

/** The id `read` finds in `list`'s output, after creating the resource if it is missing. */
function ensure(what, list, read, create) {
  const found = read(wrangler(list, { capture: true }));
  if (found) return found;
  console.error(`${what}: missing, creating it`);
  wrangler(create);
  const created = read(wrangler(list, { capture: true }));
  if (!created) throw new Error(`${what}: created, but \`wrangler ${list.join(' ')}\` does not list it`);
  return created;
}

function main(deployArgs) {
  if (deployArgs.includes('--dry-run')) {
    console.error('deploy: --dry-run: nothing is created, migrated or uploaded; building the bundle only');
    wrangler(['deploy', ...deployArgs]);
    return;
  }
  const toml = readFileSync('wrangler.toml', 'utf8');
  const want = wantedResources(toml);
  const databaseId = ensure(
    `D1 database ${want.database}`,
    ['d1', 'list', '--json'],
    (out) => d1Id(out, want.database),
    ['d1', 'create', want.database, '--update-config=false'],
  );
  const namespaceId = ensure(
    `KV namespace ${want.kvTitle}`,
    ['kv', 'namespace', 'list'],
    (out) => kvId(out, want.kvTitle),
    ['kv', 'namespace', 'create', want.kvTitle, '--update-config=false'],
  );
  const queues = queueNames(wrangler(['queues', 'list'], { capture: true }));
  for (const queue of want.queues.filter((q) => !queues.has(q))) {
    console.error(`queue ${queue}: missing, creating it`);
    wrangler(['queues', 'create', queue]);
  }
  const config = deployConfig(toml, { databaseId, kvId: namespaceId, kvBinding: want.kvBinding });
  let previous = '';
  try {
    previous = readFileSync(DEPLOY_CONFIG, 'utf8');
  } catch {
    // first deploy
  }
  if (config !== previous) writeFileSync(DEPLOY_CONFIG, config);
  wrangler(['d1', 'migrations', 'apply', 'DB', '--remote', '--config', DEPLOY_CONFIG]);
  wrangler(['deploy', '--config', DEPLOY_CONFIG, ...deployArgs]);
}

try {
  main(process.argv.slice(2));
} catch (err) {
  console.error(`deploy: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
