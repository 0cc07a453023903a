// `npm run check:example`: the package as a user gets it. Builds edgeplan, makes a project with
// `edgeplan init` (examples/custom-worker copied out, edgeplan packed into its vendor/) and installs it
// (the other dependencies from the npm cache, --prefer-offline; wrangler from this repository), names an MCP server of the team's own (the official SDK on loopback, in this
// process) and the secret `example.greet` reads in its .dev.vars, starts `wrangler dev` there, runs a
// plan using the example's own tool `example.greet` and the MCP server's tool through POST /v1/runs,
// checks both answers, plans a goal with the example's `npm run fake-llm` as the LLM (named in
// .dev.vars as its README says), bundles it, rehearses `npm run deploy` against its
// scripts/fake-wrangler.mjs, and stops the whole process group. Exits 0 when the example works; prints what it did.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { startDevServer } from './dev-server.mjs';
import { checkConsumers } from './package-consumers.mjs';
import { serveMcp } from './mcp-loopback.mjs';

const root = new URL('..', import.meta.url).pathname;
const npmEnv = { ...process.env, PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH ?? ''}` };
const started = Date.now();
const step = (what) =>
  console.log(`example-check: ${what} (${((Date.now() - started) / 1000).toFixed(1)} s)`);

const work = mkdtempSync(join(tmpdir(), 'edgeplan-example-'));
let server;
let mcp;
let llm;
/** What the team's MCP server was called with: each call's arguments and `_meta`. */
const mcpCalls = [];
try {
  // Built here, as a checkout someone runs `npx edgeplan init` from is.
  execFileSync('npm', ['run', '--silent', 'build'], {
    cwd: root,
    env: npmEnv,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  step('built dist/');
  // `edgeplan init`: the example copied out, edgeplan packed into its vendor/ and named there.
  const app = join(work, 'my-agent');
  const project = JSON.parse(
    execFileSync(process.execPath, [join(root, 'dist/cli.js'), '--json', 'init', app], {
      cwd: work,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
  if (manifest.name !== 'my-agent' || manifest.dependencies.edgeplan !== `file:${project.tarball}`)
    throw new Error(`edgeplan init wrote ${JSON.stringify(manifest)}`);
  if (!readFileSync(join(app, 'wrangler.toml'), 'utf8').includes('name = "my-agent"'))
    throw new Error('edgeplan init left the example’s Worker name in wrangler.toml');
  if (!/^\.dev\.vars$/m.test(readFileSync(join(app, '.gitignore'), 'utf8')))
    throw new Error('the project’s .gitignore does not keep .dev.vars out');
  step(`edgeplan init made my-agent: ${project.files.length} files, edgeplan in ${project.tarball}`);
  // Its dependencies as `npm install` there installs them (the other dependencies from the npm cache);
  // wrangler, Node and TypeScript from this repository (the workers types installed).
  for (const dep of ['wrangler', 'node', 'typescript']) delete manifest.devDependencies[dep];
  writeFileSync(join(app, 'package.json'), JSON.stringify(manifest, null, 2));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd: app,
    env: npmEnv,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (!existsSync(join(app, 'node_modules/edgeplan/migrations')))
    throw new Error('npm install did not install edgeplan from vendor/');
  step('npm install in my-agent installed edgeplan from its vendor/');
  // What `npm start` checks first (its prestart): the package installed, with migrations and assets.
  execFileSync(process.execPath, [join(app, 'scripts/check-install.mjs'), app], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  step('npm start’s prestart finds edgeplan installed and built');

  // The team's code typechecks against the package's declarations, as `npm run typecheck` there does:
  // the Worker (src/) and its tests (test/, with Node's types).
  for (const project of [app, join(app, 'test')]) {
    execFileSync('tsc', ['--noEmit', '-p', project], {
      cwd: app,
      env: npmEnv,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
  step('tsc --noEmit: src/index.ts typechecks against the packed edgeplan/worker, test/ against edgeplan');
  // The same package in the setups other teams have: strictest tsconfigs, wrangler types, require(), a browser.
  await checkConsumers(app, npmEnv);
  step('the packed package meets the other setups teams have (scripts/package-consumers.mjs)');
  // Its tools in a plan, in process: `npm test` (Node's test runner on the project's Node).
  const tested = spawnSync('npm', ['test', '--silent'], { cwd: app, env: npmEnv, encoding: 'utf8' });
  const passed = /^ℹ pass (\d+)$/m.exec(tested.stdout)?.[1];
  if (tested.status !== 0 || passed === undefined || /^ℹ fail [1-9]/m.test(tested.stdout))
    throw new Error(`npm test in the project failed:\n${tested.stdout}\n${tested.stderr}`);
  step(`npm test: ${passed} tests of the team's tools passed, in process`);

  // The team's own MCP server, named in .dev.vars as the example's README shows.
  mcp = await teamMcpServer(mcpCalls);
  // The example's stand-in for an LLM (`npm run fake-llm -- plan.json`), answering with a plan of one
  // example.greet step, on a free port.
  writeFileSync(
    join(app, 'plan.json'),
    JSON.stringify({
      steps: [{ id: 'hi', action: 'example.greet', parameters: { name: 'Grace' }, dependencies: [] }],
    }),
  );
  llm = await fakeLlm(app);
  step(`npm run fake-llm answers on ${llm.url}`);
  // And the secret example.greet reads through ctx.env, as a team's own tool reads its keys.
  writeFileSync(
    join(app, '.dev.vars'),
    `MCP_SERVERS='${JSON.stringify([{ name: 'team', url: `http://127.0.0.1:${mcp.address().port}/mcp` }])}'\n` +
      'GREETING_SIGNATURE=the team\n' +
      `OPENAI_BASE_URL=${llm.url}\nOPENAI_API_KEY=fake\n`,
  );

  server = await startDevServer({
    name: 'edgeplan-example',
    cwd: app,
    demoTools: false,
    extraArgs: ['--var', 'ALLOW_ANONYMOUS:true'],
  });
  step(`wrangler dev answers on ${server.base}`);

  const tools = await (await fetch(`${server.base}/v1/tools`)).json();
  const names = tools.tools.map((t) => t.name);
  if (!names.includes('example.greet') || !names.includes('mcp.team.shout') || names.includes('demo.echo'))
    throw new Error(`GET /v1/tools lists ${names.join(', ')}`);

  const created = await fetch(`${server.base}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      plan: {
        goal: 'greet Ada',
        steps: [
          { id: 'hi', action: 'example.greet', parameters: { name: 'Ada' } },
          { id: 'again', action: 'example.greet', parameters: { name: '{{ steps.hi.output.greeting }}' } },
          {
            id: 'shout',
            action: 'mcp.team.shout',
            parameters: { text: '{{ steps.again.output.greeting }}' },
          },
        ],
      },
      config: { execution_mode: 'parallel' },
    }),
  });
  if (created.status !== 201) throw new Error(`POST /v1/runs → ${created.status} ${await created.text()}`);
  const { run_id } = await created.json();
  const run = await waitForRun(server.base, run_id);
  if (run.status !== 'completed')
    throw new Error(`run ${run_id} ended ${run.status}: ${JSON.stringify(run.error)}`);
  const greeting = run.step_results.hi?.greeting;
  if (greeting !== 'Hello, Ada! — the team')
    throw new Error(
      `example.greet answered ${JSON.stringify(run.step_results.hi)}, not signed with GREETING_SIGNATURE`,
    );
  step(`run ${run_id} completed: ${JSON.stringify(run.step_results.again.greeting)}`);
  step('example.greet signed with GREETING_SIGNATURE from .dev.vars (ctx.env)');
  const shouted = run.step_results.shout?.text;
  const meta = mcpCalls[0]?.meta ?? {};
  if (
    shouted !== 'HELLO, HELLO, ADA! — THE TEAM! — THE TEAM' ||
    meta['edgeplan/idempotency_key'] !== `${run_id}:shout`
  )
    throw new Error(
      `mcp.team.shout answered ${JSON.stringify(run.step_results.shout)}, called with ${JSON.stringify(mcpCalls)}`,
    );
  step(
    `the team's MCP server answered ${JSON.stringify(shouted)} (_meta: ${meta['edgeplan/idempotency_key']})`,
  );

  // A goal: planned by the fake LLM (streamed: it needs no approval), then run.
  const goal = await fetch(`${server.base}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ goal: 'say hello to Grace' }),
  });
  if (goal.status !== 201) throw new Error(`POST /v1/runs {goal} → ${goal.status} ${await goal.text()}`);
  const planned = await waitForRun(server.base, (await goal.json()).run_id);
  if (planned.status !== 'completed' || planned.step_results.hi?.greeting !== 'Hello, Grace! — the team')
    throw new Error(
      `the goal run ended ${planned.status}: ${JSON.stringify(planned.error ?? planned.step_results)}`,
    );
  step(`a goal planned by npm run fake-llm completed: ${JSON.stringify(planned.step_results.hi.greeting)}`);

  // The dashboard and the API reference come with the package's built assets.
  const page = await (await fetch(`${server.base}/`)).text();
  const appJs = await fetch(`${server.base}/app/app.js`);
  const docs = await fetch(`${server.base}/docs/swagger-ui-bundle.js`);
  if (!page.includes('/app/app.js') || appJs.status !== 200 || docs.status !== 200)
    throw new Error(
      `dashboard assets: / ${page.slice(0, 80)}, app.js ${appJs.status}, swagger ${docs.status}`,
    );
  step('the dashboard and /docs are served from the package’s assets');

  // Bundled as the example's wrangler.toml says: minified, ajv aliased to the package's stub and zod
  // to its English-only shim (esbuild's metafile names every input that put bytes in the bundle).
  const out = join(work, 'bundle');
  const metafile = join(work, 'bundle-meta.json');
  execFileSync('wrangler', ['deploy', '--dry-run', '--outdir', out, '--metafile', metafile], {
    cwd: app,
    env: npmEnv,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const bundle = readFileSync(join(out, 'index.js'), 'utf8');
  if (!bundle.includes('ajv is not bundled in the Worker') || bundle.includes('strictSchema'))
    throw new Error('the bundle carries ajv: wrangler.toml [alias] did not take edgeplan/ajv-stub');
  const { outputs } = JSON.parse(readFileSync(metafile, 'utf8'));
  const inputs = Object.values(outputs).find((o) => o.entryPoint !== undefined)?.inputs ?? {};
  const locales = Object.entries(inputs)
    .filter(([path, { bytesInOutput }]) => path.includes('zod/v4/locales/') && bytesInOutput > 0)
    .map(([path]) => path.replace(/.*\/locales\//, ''));
  if (locales.join() !== 'en.js' || !bundle.includes('Invalid input: expected'))
    throw new Error(
      `the bundle carries zod's locales ${locales.join(', ')}: wrangler.toml [alias] did not take edgeplan/zod-english`,
    );
  step(
    `wrangler deploy --dry-run: ${(bundle.length / 1024).toFixed(0)} KiB, ajv aliased to the stub, zod's locales: ${locales.join(', ')}`,
  );

  // The deploy rehearsed as the example's README says: npm run deploy against its fake wrangler.
  const rehearse = () => {
    const r = spawnSync('npm', ['run', 'deploy'], {
      cwd: app,
      env: { ...npmEnv, EDGEPLAN_WRANGLER: join(app, 'scripts/fake-wrangler.mjs') },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`npm run deploy (rehearsed) exited with ${r.status}: ${r.stderr}`);
    return r.stderr;
  };
  rehearse();
  const account = JSON.parse(readFileSync(join(app, 'fake-wrangler-account.json'), 'utf8'));
  const deployed = readFileSync(join(app, 'wrangler.deploy.toml'), 'utf8');
  const made = [...account.d1, ...account.kv, ...account.queues].length;
  if (made !== 4 || !deployed.includes(`database_id = "${account.d1[0]?.uuid}"`))
    throw new Error(`npm run deploy against scripts/fake-wrangler.mjs: ${JSON.stringify(account)}`);
  if (/creating it/.test(rehearse())) throw new Error('a second rehearsed deploy created something again');
  step('npm run deploy rehearsed with scripts/fake-wrangler.mjs: 4 resources created, then none');
} finally {
  server?.stop();
  mcp?.close();
  llm?.stop();
  rmSync(work, { recursive: true, force: true });
}
console.log('example-check: ok');

/** The example's `npm run fake-llm -- plan.json` in `app`, on a free port: its URL, and how to stop it. */
function fakeLlm(app) {
  const child = spawn(process.execPath, ['scripts/fake-llm.mjs', 'plan.json'], {
    cwd: app,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`npm run fake-llm exited with ${code}`)));
    child.stdout.on('data', (c) => {
      out += c;
      const url = /http:\/\/127\.0\.0\.1:\d+\/v1/.exec(out)?.[0];
      if (url) resolve({ url, stop: () => child.kill() });
    });
  });
}

async function waitForRun(base, runId) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const run = await (await fetch(`${base}/v1/runs/${runId}`)).json();
    if (['completed', 'failed', 'cancelled', 'aborted'].includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status} after 20 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A team's MCP server: the official SDK's McpServer over Streamable HTTP (stateless, JSON answers) on
 * a free loopback port, with one tool `shout` ({text} → {text} in capitals). Records every call.
 */
function teamMcpServer(calls) {
  return serveMcp(() => {
    const server = new McpServer({ name: 'team', version: '1.0.0' });
    server.registerTool(
      'shout',
      {
        description: 'Says a text in capitals',
        inputSchema: { text: z.string() },
        outputSchema: { text: z.string() },
      },
      ({ text }, extra) => {
        calls.push({ text, meta: extra._meta });
        const out = { text: text.toUpperCase() };
        return { content: [{ type: 'text', text: out.text }], structuredContent: out };
      },
    );
    return server;
  });
}
