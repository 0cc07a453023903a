/**
 * `edgeplan deploy` (and this repository's `npm run deploy`): in a Worker's project, creates what its
 * wrangler.toml needs and is missing, by name — the D1 database, the KV namespace, the queues — writes
 * their ids into wrangler.deploy.toml (a copy of wrangler.toml; the committed file keeps its
 * placeholder ids, so local dev and tests are untouched), applies the D1 migrations remotely, and
 * deploys. Running it again creates nothing. It calls `wrangler` from PATH (`npm run` and `npx` put
 * the project's first). With `--dry-run` nothing is created, migrated or uploaded, and no account is
 * needed: only the bundle is built, from wrangler.toml.
 * @example
 * deploy(['--dry-run', '--outdir', '/tmp/x']); // wrangler deploy --dry-run --outdir /tmp/x
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { d1Id, deployConfig, kvId, queueNames, unconsumedQueues, wantedResources } from './config.ts';

export const DEPLOY_CONFIG = 'wrangler.deploy.toml';

/**
 * What to do when a call on the account fails: wrangler has said why above, and most often on a first
 * deploy it is a login missing, which "exited with 1" alone does not tell.
 */
const ACCOUNT_HINT =
  "; wrangler's message above says why. Not logged in? Run `npx wrangler login` " +
  '(in CI, set CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID), then deploy again';

/** The stand-in `edgeplan init` gives a project, which the rehearsal hint names where it is there. */
const FAKE_WRANGLER = 'scripts/fake-wrangler.mjs';

/**
 * For someone rehearsing with a stand-in first on PATH, which `npm run deploy` passes over for the
 * project's own wrangler (it puts node_modules/.bin first): the real one then asks for a login. The
 * command must run as printed, so it names the project's own stand-in where there is one.
 */
function rehearseHint(cwd: string): string {
  const stub = existsSync(join(cwd, FAKE_WRANGLER)) ? `$PWD/${FAKE_WRANGLER}` : '<your stand-in>';
  return (
    `. To rehearse without an account, name a stand-in for wrangler: \`EDGEPLAN_WRANGLER=${stub} npm run deploy\` ` +
    '(one first on PATH is not used: npm run puts node_modules/.bin ahead of it)'
  );
}

/**
 * The wrangler to run: `EDGEPLAN_WRANGLER` when set — a stand-in, to rehearse a deploy without an
 * account; a stand-in first on PATH does not do, since `npm run deploy` puts the project's own
 * wrangler ahead of it — else `wrangler` from PATH.
 */
function wranglerCommand(): string {
  return process.env.EDGEPLAN_WRANGLER || 'wrangler';
}

/**
 * Runs wrangler in `cwd`; `capture` returns its stdout, otherwise its output goes to ours. Throws on
 * failure; `account: false` for a call that needs no account (a dry run), whose failure is no login's.
 */
function wrangler(cwd: string, args: string[], { capture = false, account = true } = {}): string {
  const command = wranglerCommand();
  console.error(
    `$ ${command === 'wrangler' ? 'wrangler' : `wrangler (EDGEPLAN_WRANGLER=${command})`} ${args.join(' ')}`,
  );
  const r = spawnSync(command, args, {
    cwd,
    stdio: capture ? ['inherit', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  if (r.error)
    throw new Error(
      command === 'wrangler'
        ? `wrangler could not be started (${r.error.message}): install it in the project (npm i -D wrangler) and run this with npx or npm run`
        : `EDGEPLAN_WRANGLER=${command} could not be started (${r.error.message}): name an executable file, or unset it to run the project's wrangler`,
    );
  if (r.status !== 0)
    throw new Error(
      `wrangler ${args.join(' ')} exited with ${r.status}${account ? ACCOUNT_HINT : ''}${account && command === 'wrangler' ? rehearseHint(cwd) : ''}${account ? '.' : ''}`,
    );
  return r.stdout ?? '';
}

/** The id `read` finds in `list`'s output, after creating the resource if it is missing. */
function ensure(
  cwd: string,
  what: string,
  list: string[],
  read: (out: string) => string | undefined,
  create: string[],
): string {
  const found = read(wrangler(cwd, list, { capture: true }));
  if (found) return found;
  console.error(`${what}: missing, creating it`);
  wrangler(cwd, create);
  const created = read(wrangler(cwd, list, { capture: true }));
  if (!created) throw new Error(`${what}: created, but \`wrangler ${list.join(' ')}\` does not list it`);
  return created;
}

/**
 * The account's queue names, as far as needed to find `wanted`. `wrangler queues list` answers one
 * page (`--page`), where the D1 and KV lists answer all: read page after page until every wanted
 * queue is found or a page adds none — else a queue past the first page was taken for missing and
 * `queues create` refused it, failing every deploy after the first on a busy account.
 */
function listQueues(cwd: string, wanted: string[]): Set<string> {
  const names = new Set<string>();
  for (let page = 1; page <= 1000; page++) {
    const before = names.size;
    const listed = queueNames(wrangler(cwd, ['queues', 'list', '--page', String(page)], { capture: true }));
    for (const name of listed) names.add(name);
    if (wanted.every((q) => names.has(q)) || names.size === before) break;
  }
  return names;
}

/** Deploys the Worker whose wrangler.toml is in `cwd`; `deployArgs` go to `wrangler deploy`. */
export function deploy(deployArgs: string[], cwd = process.cwd()): void {
  if (!existsSync(join(cwd, 'wrangler.toml')))
    throw new Error(`no wrangler.toml in ${cwd}: run this in your Worker's project`);
  const toml = readFileSync(join(cwd, 'wrangler.toml'), 'utf8');
  // Refused before anything is built or created: deployed, it would leave steps in a queue.
  const unconsumed = unconsumedQueues(toml);
  if (unconsumed) throw new Error(unconsumed);
  if (deployArgs.includes('--dry-run')) {
    console.error('deploy: --dry-run: nothing is created, migrated or uploaded; building the bundle only');
    wrangler(cwd, ['deploy', ...deployArgs], { account: false });
    return;
  }
  const want = wantedResources(toml);
  const databaseId = ensure(
    cwd,
    `D1 database ${want.database}`,
    ['d1', 'list', '--json'],
    (out) => d1Id(out, want.database),
    ['d1', 'create', want.database, '--update-config=false'],
  );
  const kvIds: Record<string, string> = {};
  for (const ns of want.namespaces)
    kvIds[ns.binding] = ensure(
      cwd,
      `KV namespace ${ns.title}`,
      ['kv', 'namespace', 'list'],
      (out) => kvId(out, ns.title),
      ['kv', 'namespace', 'create', ns.title, '--update-config=false'],
    );
  const queues = listQueues(cwd, want.queues);
  for (const queue of want.queues.filter((q) => !queues.has(q))) {
    console.error(`queue ${queue}: missing, creating it`);
    wrangler(cwd, ['queues', 'create', queue]);
  }
  const config = deployConfig(toml, { databaseId, kvIds });
  const path = join(cwd, DEPLOY_CONFIG);
  const previous = existsSync(path) ? readFileSync(path, 'utf8') : '';
  if (config !== previous) writeFileSync(path, config);
  wrangler(cwd, ['d1', 'migrations', 'apply', 'DB', '--remote', '--config', DEPLOY_CONFIG]);
  wrangler(cwd, ['deploy', '--config', DEPLOY_CONFIG, ...deployArgs]);
}
