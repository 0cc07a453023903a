import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { unstable_readConfig } from 'wrangler';
import { defineConfig } from 'vitest/config';
import { nodeProcess } from './scripts/eval/node-api.ts';
import { freePort } from './test/workers-http/free-port.ts';

// Two layers (STYLE §11): pure modules in plain Node, everything that touches a binding in the
// Workers runtime with real Durable Objects, alarms, Queues, D1 and KV (Miniflare).
export default defineConfig(async () => {
  const migrations = await readD1Migrations('migrations');
  // The workers-http project's MCP server (globalSetup) listens here; MCP_SERVERS names it.
  // (Chosen once per process: the config may be evaluated more than once.)
  const env = nodeProcess().env;
  env.EDGEPLAN_TEST_MCP_PORT ??= String(await freePort());
  const mcpPort = env.EDGEPLAN_TEST_MCP_PORT;
  // The misbehaving MCP server (test/workers-http/mcp-hostile-server.ts), likewise.
  env.EDGEPLAN_TEST_HOSTILE_MCP_PORT ??= String(await freePort());
  // The MCP server that keeps sessions (test/workers-http/mcp-stateful-server.ts), likewise.
  env.EDGEPLAN_TEST_STATEFUL_MCP_PORT ??= String(await freePort());
  const hostile = (name: string, path: string, headers?: Record<string, string>) => ({
    name,
    url: `http://127.0.0.1:${env.EDGEPLAN_TEST_HOSTILE_MCP_PORT}/h/${path}`,
    ...(headers ? { headers } : {}),
  });
  const mcpServers = [
    { name: 'math', url: `http://127.0.0.1:${mcpPort}/mcp/e2e` },
    {
      name: 'authd',
      url: `http://127.0.0.1:${mcpPort}/mcp/e2e-auth`,
      headers: { Authorization: 'Bearer ${MCP_TEST_TOKEN}' },
    },
    // Malformed (a dot in the name): left out and logged; the two above must still be listed.
    { name: 'bad.name', url: `http://127.0.0.1:${mcpPort}/mcp/e2e` },
    // Misbehaving servers (test/workers-http/mcp-hostile.test.ts).
    hostile('hostile_hang', 'hang/e2e'),
    hostile('hostile_loop', 'schemas-loop/e2e'),
    hostile('hostile_leak', 'leak/e2e', { Authorization: 'Bearer ${HOSTILE_MCP_TOKEN}' }),
    // Tools left out one by one (a name MCP does not allow, a second "dup", an invalid inputSchema).
    hostile('hostile_names', 'names/e2e'),
    hostile('hostile_invalid', 'schemas-invalid/e2e'),
    // Refused (a wrong token), with the token echoed in the 401's body.
    hostile('hostile_badauth', 'leak/badauth', { Authorization: 'Bearer ${HOSTILE_WRONG_TOKEN}' }),
    // A server with sessions whose tools go away mid-run (test/workers-http/mcp-sessions.test.ts).
    { name: 'stateful', url: `http://127.0.0.1:${env.EDGEPLAN_TEST_STATEFUL_MCP_PORT}/s/e2e` },
    // The same with a `hold` tool whose calls wait until released (test/workers-http/mcp-crash.test.ts).
    { name: 'holding', url: `http://127.0.0.1:${env.EDGEPLAN_TEST_STATEFUL_MCP_PORT}/s/hold-e2e` },
  ];
  /**
   * What a developer's own `.dev.vars` sets (`npm start`'s secrets: a token, a retention, a webhook
   * secret) put back as wrangler.toml has it. Wrangler's config loader reads that file for these
   * projects too, and an API_TOKEN there answered every test's request with a 401. Without the file,
   * nothing.
   */
  const devVarsUndone = (): Record<string, string> => {
    if (!existsSync('.dev.vars')) return {};
    const vars = unstable_readConfig({ config: './wrangler.toml' }).vars;
    const given = Object.keys(parseEnv(readFileSync('.dev.vars', 'utf8')));
    return Object.fromEntries(given.map((k) => [k, typeof vars[k] === 'string' ? vars[k] : '']));
  };
  /** A project in the Workers runtime with the demo tools, migrations and these extra bindings. */
  const workersProject = (
    name: string,
    dir: string,
    bindings: Record<string, string>,
    globalSetup: string[] = [],
    main?: string,
    files: { include?: string[]; exclude?: string[]; isolate?: boolean } = {},
  ) => ({
    plugins: [
      cloudflareTest({
        ...(main ? { main } : {}),
        wrangler: { configPath: './wrangler.toml' },
        // ALLOW_ANONYMOUS: these tests use an open API (no API_TOKEN); auth tests set their own env.
        miniflare: {
          bindings: {
            ...devVarsUndone(),
            DEMO_TOOLS: 'true',
            ALLOW_ANONYMOUS: 'true',
            TEST_MIGRATIONS: migrations,
            ...bindings,
          },
          // A queue nothing consumes: a deployment whose Worker sends steps that no consumer takes.
          queueProducers: { STEPS_UNCONSUMED: { queueName: 'steps-unconsumed' } },
        },
      }),
    ],
    test: {
      name,
      include: files.include ?? [`${dir}/**/*.test.ts`],
      exclude: files.exclude ?? [],
      setupFiles: ['test/workers/apply-migrations.ts'],
      globalSetup,
      // One runtime for a worker's files, one after another, instead of a new one per file: the
      // per-file start (spawning workerd, transforming the sources again) was most of these projects'
      // time. Files share the database and objects, so a test looks only at the runs it made; a file
      // that must see a database no other file wrote runs isolated (`workers-isolated`).
      isolate: files.isolate ?? false,
      // Not vitest's 5 s: these files share two cores with end-to-end files (a wrangler dev starting,
      // a browser), and a test's thousand RPCs or an approval deadline took over 5 s there. A test
      // that hangs still fails.
      testTimeout: 20_000,
    },
  });
  // TEA_TEST_VAR: a Worker variable whose value appears nowhere else (settings-secrets.test.ts).
  const WORKERS_BINDINGS = {
    WEBHOOK_SECRET: 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=',
    TEA_TEST_VAR: 'tea-var-7f3e9',
  };
  /** Workers test files that must have the runtime, its database and its objects to themselves. */
  const ALONE = ['test/workers/retention-sweep.test.ts'];
  return {
    test: {
      // The JSON report is what .ci/run counts; the default reporter is for people.
      // Two files at a time, not vitest's default of one fewer than the cores (1 on a 2-core CI
      // machine): most of an end-to-end file's time is waiting — for wrangler dev to start, for
      // leases and queue redeliveries, for a browser — not CPU. Measured on 2 cores: 901 s, not 1311.
      maxWorkers: 2,
      reporters: ['default', 'json'],
      outputFile: { json: 'test-results.json' },
      projects: [
        {
          test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node' },
        },
        // Node-side end-to-end checks that start their own `wrangler dev` (scripts/dev-server.mjs).
        {
          test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], environment: 'node' },
        },
        workersProject('workers', 'test/workers', WORKERS_BINDINGS, [], undefined, {
          exclude: ALONE,
        }),
        // The retention sweep wakes every ended run in the index: it needs an index of its own runs.
        workersProject('workers-isolated', 'test/workers', WORKERS_BINDINGS, [], undefined, {
          include: ALONE,
          isolate: true,
        }),
        // A deployment with an LLM configured (a scripted endpoint, injected with setLlmFetch): goal
        // runs plan inside the run's object, revisions call the planner.
        // Its approval webhooks go to the loopback server (a real Standard Webhooks receiver), which
        // HTTP_ALLOWLIST lets the runtime's fetch reach: what a revision's approval sends is checked there.
        workersProject(
          'workers-llm',
          'test/workers-llm',
          {
            OPENAI_API_KEY: 'sk-test-scripted',
            OPENAI_BASE_URL: 'https://llm.test/v1',
            PLANNER_MODEL: 'scripted-1',
            WEBHOOK_SECRET: WORKERS_BINDINGS.WEBHOOK_SECRET,
            HTTP_ALLOWLIST: '127.0.0.1',
          },
          ['test/workers-http/loopback-server.ts'],
        ),
        // A deployment whose operator allowlisted loopback: http.request through the runtime's own
        // fetch to a real server on 127.0.0.1 (started in Node by the globalSetup). Apart from the
        // `workers` project because its tests rely on an empty HTTP_ALLOWLIST (loopback refused, any
        // public host allowed).
        workersProject(
          'workers-http',
          'test/workers-http',
          {
            HTTP_ALLOWLIST: '127.0.0.1',
            // Two secrets, as in the middle of a rotation: every webhook carries a signature by each
            // (test/workers-http/webhook-rotation.test.ts).
            WEBHOOK_SECRET:
              'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=, whsec_dGhlLXJvdGF0ZWQtaW4td2ViaG9vay1zZWNyZXQ=',
            MCP_SERVERS: JSON.stringify(mcpServers),
            // An operator's own bound on child runs: 3 a tree (child-run-limit-setting.test.ts).
            MAX_CHILD_RUNS: '3',
            MCP_TEST_TOKEN: 'mcp-s3cret',
            HOSTILE_MCP_TOKEN: 'hostile-s3cret',
            HOSTILE_WRONG_TOKEN: 'wrong-s3cret-value',
          },
          [
            'test/workers-http/loopback-server.ts',
            'test/workers-http/mcp-server.ts',
            'test/workers-http/mcp-hostile-server.ts',
            'test/workers-http/mcp-stateful-server.ts',
            // A Cloudflare Access team domain's signing keys (test/workers-http/access-auth.test.ts).
            'test/workers-http/access-jwks-server.ts',
          ],
        ),
        // A team's own Worker (edgeplan/worker's createEdgeplan with a tool of its own) as the main
        // module: its run object, queue consumer and HTTP app share one registry.
        // `npm run capture:storage` only (scripts/capture-storage-fixtures.mjs): writes the storage
        // fixtures of this release's format, which are frozen once committed. A planner is configured
        // (its model scripted per test, as in workers-llm) for the states a revision leaves.
        ...(env.EDGEPLAN_CAPTURE_STORAGE
          ? [
              workersProject(
                'storage-capture',
                'test/storage-capture',
                { OPENAI_API_KEY: 'sk-test-scripted', OPENAI_BASE_URL: 'https://llm.test/v1' },
                ['test/storage-capture/sink.ts'],
              ),
            ]
          : []),
        workersProject(
          'workers-factory',
          'test/workers-factory',
          { GREETER_SECRET: 'from-env' },
          [],
          'test/workers-factory/worker.ts',
        ),
      ],
    },
  };
});
