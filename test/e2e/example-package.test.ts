/**
 * The package as a team starts from it: `npm run check:example` makes a project with `edgeplan init`
 * (examples/custom-worker copied out, edgeplan packed into its vendor/), installs it, names an MCP server of the team's own in
 * its .dev.vars, starts `wrangler dev` there and runs a plan using the example's own tool
 * `example.greet` and the MCP server's tool through POST /v1/runs, plans a goal with the example's
 * `npm run fake-llm` as the LLM, and bundles it with `wrangler
 * deploy --dry-run` (scripts/example-check.mjs).
 */
import { describe, expect, it } from 'vitest';
import { nodeProcess } from '../../scripts/eval/node-api';

type ChildProcess = {
  spawnSync(
    this: void,
    cmd: string,
    args: string[],
    opts: { cwd: string; env: Record<string, string | undefined>; encoding: 'utf8'; timeout: number },
  ): { status: number | null; stdout: string; stderr: string };
};
const node = nodeProcess();
const { spawnSync } = node.getBuiltinModule('node:child_process') as ChildProcess;
const root = (node as unknown as { cwd(): string }).cwd();

describe('the packed package in examples/custom-worker', () => {
  it(
    'makes a project with edgeplan init, installs it and runs a plan with example.greet and its own MCP server under wrangler dev',
    { timeout: 300_000 },
    () => {
      const r = spawnSync(node.argv[0]!, [`${root}/scripts/example-check.mjs`], {
        cwd: root,
        env: node.env,
        encoding: 'utf8',
        timeout: 290_000,
      });
      // wrangler dev may lose a port it found free to another server starting at once; it says so
      // (an ERROR line) and the start is retried on another port, which is not a failure of the check.
      const retried = /starting it again/.test(r.stderr);
      const portLost = (l: string) => retried && /Address already in use/.test(l);
      expect(
        r.stderr.split('\n').filter((l) => /error/i.test(l) && !/npm warn/i.test(l) && !portLost(l)),
      ).toEqual([]);
      expect(r.stdout).toMatch(
        /edgeplan init made my-agent: \d+ files, edgeplan in vendor\/edgeplan-[\d.]+\.tgz/,
      );
      expect(r.stdout).toMatch(/npm install in my-agent installed edgeplan from its vendor\//);
      // The deploy rehearsal its README gives: the example's fake wrangler, the account created once.
      expect(r.stdout).toMatch(
        /npm run deploy rehearsed with scripts\/fake-wrangler\.mjs: 4 resources created, then none/,
      );
      expect(r.stdout).toMatch(/npm start’s prestart finds edgeplan installed and built/);
      expect(r.stdout).toMatch(/tsc --noEmit: src\/index\.ts typechecks against the packed/);
      // The package in other teams' setups (scripts/package-consumers.mjs): its exports' files and the
      // source maps its files name there, the README examples under the strictest tsconfigs with
      // skipLibCheck off, the Worker with `wrangler types`, require() from CommonJS, and edgeplan/client
      // bundled for a browser with nothing of Node or cloudflare:* in it.
      expect(r.stdout).toMatch(/every export's files, and every source map a file names, are in the package/);
      expect(r.stdout).toMatch(/README client example type-checks against the packed edgeplan\/client/);
      expect(r.stdout).toMatch(/README library example type-checks against the packed edgeplan \(nodenext/);
      expect(r.stdout).toMatch(/src\/index\.ts type-checks with wrangler types' runtime types/);
      expect(r.stdout).toMatch(/require\('edgeplan'\) and require\('edgeplan\/client'\) load from CommonJS/);
      expect(r.stdout).toMatch(/edgeplan\/client bundles for a browser from \d+ files of the package alone/);
      // The project's own tests: its tools in a plan, in process (LocalRunner, Node's test runner).
      expect(r.stdout).toMatch(/npm test: 2 tests of the team's tools passed, in process/);
      expect(r.stdout).toMatch(/completed: "Hello, Hello, Ada! — the team! — the team"/);
      // A secret from the copy's .dev.vars, read by the team's tool through ctx.env.
      expect(r.stdout).toMatch(/example\.greet signed with GREETING_SIGNATURE from \.dev\.vars/);
      // The team's own MCP server (the SDK on loopback, named in the copy's .dev.vars) in the same plan.
      expect(r.stdout).toMatch(
        /the team's MCP server answered "HELLO, HELLO, ADA! — THE TEAM! — THE TEAM" \(_meta: run_\w+:shout\)/,
      );
      // A goal planned by the example's stand-in LLM (`npm run fake-llm`, named in .dev.vars).
      expect(r.stdout).toMatch(/a goal planned by npm run fake-llm completed: "Hello, Grace! — the team"/);
      expect(r.stdout).toMatch(/the dashboard and \/docs are served from the package’s assets/);
      // Bundled with the example's [alias]: no MCP SDK ajv, and zod's English only (not its 60 locales).
      expect(r.stdout).toMatch(/ajv aliased to the stub, zod's locales: en\.js \(/);
      expect(r.stdout).toMatch(/example-check: ok/);
      expect(r.status).toBe(0);
    },
  );
});
