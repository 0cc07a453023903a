/**
 * `edgeplan init <dir>`: a new project of a team's own Worker, made from the package's
 * examples/custom-worker — its own tool, wrangler.toml with every binding, the deploy and the stand-ins
 * — with edgeplan packed into its `vendor/` and named there in package.json. edgeplan is not on the
 * npm registry: by hand this was five steps (pack, copy, make vendor/, copy the tarball, install it),
 * and a copy left with the example's `file:../..` installed whatever was two directories up.
 * @example initProject({ dir: 'my-agent', from: '/path/to/edgeplan' }) // { name: 'my-agent', tarball: 'vendor/edgeplan-0.1.0.tgz', … }
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { UsageError } from './exit-codes';

/** Where the project is made from, inside the edgeplan package. */
export const TEMPLATE_DIR = 'examples/custom-worker';

/** What a copy leaves out: installs, local state and secrets, and what a deploy or a rehearsal writes. */
const LEFT_OUT =
  /(^|\/)(node_modules|\.wrangler|\.dev\.vars|dist|vendor|wrangler\.deploy\.toml|fake-wrangler-account\.json)(\/|$)/;

/**
 * The example's .gitignore, for a project made from an installed package: npm leaves every .gitignore
 * out of a tarball. test/unit/init-project.test.ts holds it to examples/custom-worker/.gitignore.
 */
export const GITIGNORE = `node_modules
# wrangler dev's local state (D1, KV, queues, run objects)
.wrangler
# local secrets: API_TOKEN, OPENAI_API_KEY, MCP_SERVERS and the secrets its headers name
.dev.vars
# written by edgeplan deploy with the real resource ids
wrangler.deploy.toml
# npm run deploy -- --dry-run --outdir dist
dist
# the pretend account of scripts/fake-wrangler.mjs (a deploy rehearsal)
fake-wrangler-account.json
`;

const PackageJson = z.looseObject({
  name: z.string(),
  version: z.string(),
  dependencies: z.record(z.string(), z.string()).optional(),
});
const PackResult = z.array(z.looseObject({ filename: z.string() })).min(1);

export type InitResult = {
  /** The project's directory, absolute. */
  dir: string;
  /** Its package name. */
  name: string;
  /** The packed edgeplan, relative to the project: what its package.json names. */
  tarball: string;
  /** The edgeplan version packed. */
  version: string;
  /** The files written, relative to the project, sorted. */
  files: string[];
};

/**
 * Makes the project in `dir` (new or empty) from the edgeplan package at `from`. Refuses a directory
 * with anything in it, and a `from` that is not a built edgeplan package, with a UsageError.
 */
export function initProject({ dir, from }: { dir: string; from: string }): InitResult {
  const target = resolve(dir);
  if (existsSync(target) && readdirSync(target).length > 0) {
    throw new UsageError(
      `${dir} is not empty: edgeplan init makes a new project; name a new directory (edgeplan init my-agent)`,
    );
  }
  const edgeplan = readPackage(from);
  const inside = relative(resolve(from), target);
  if (!(inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside))) {
    // Inside a checkout, the checkout's own lint, format check and tests would take it for theirs.
    throw new UsageError(
      `${dir} is inside the edgeplan package at ${resolve(from)}: make the project beside it (edgeplan init ../${basename(target)})`,
    );
  }
  const template = join(from, TEMPLATE_DIR);
  if (!existsSync(join(template, 'wrangler.toml'))) {
    throw new UsageError(
      `${from} has no ${TEMPLATE_DIR} to make the project from: is it an edgeplan package?`,
    );
  }
  for (const built of ['dist/index.js', 'dist/worker.js', 'dist/public']) {
    if (!existsSync(join(from, built))) {
      throw new UsageError(
        `edgeplan in ${from} is not built (${built} is missing): run npm run build there first`,
      );
    }
  }

  const made = !existsSync(target);
  try {
    return writeProject(template, target, from, edgeplan.version);
  } catch (err) {
    // Nothing half made is left: run again, the directory is new or empty as it was.
    if (made) rmSync(target, { recursive: true, force: true });
    else
      for (const entry of readdirSync(target)) rmSync(join(target, entry), { recursive: true, force: true });
    throw err;
  }
}

function writeProject(template: string, target: string, from: string, version: string): InitResult {
  mkdirSync(target, { recursive: true });
  cpSync(template, target, { recursive: true, filter: (src) => !LEFT_OUT.test(relative(template, src)) });
  if (!existsSync(join(target, '.gitignore'))) writeFileSync(join(target, '.gitignore'), GITIGNORE);
  const vendor = join(target, 'vendor');
  mkdirSync(vendor);
  // --ignore-scripts: the package is built (checked above), and an installed one has no build tools.
  const packed = PackResult.parse(
    JSON.parse(
      execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', vendor], {
        cwd: from,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    ),
  );
  const tarball = `vendor/${packed[0]!.filename}`;

  const name = projectName(basename(target));
  const manifestPath = join(target, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as z.infer<typeof PackageJson>;
  PackageJson.parse(manifest);
  manifest.name = name;
  manifest.version = '0.1.0';
  manifest.description = `An edgeplan Worker of ${name}'s own.`;
  manifest.dependencies = { ...manifest.dependencies, edgeplan: `file:${tarball}` };
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(target, 'README.md'), projectReadme(name, tarball, version));
  // The Worker, its queues and its database named after the project: two projects made from the
  // example would otherwise deploy over one another's Worker in one account.
  const toml = join(target, 'wrangler.toml');
  writeFileSync(
    toml,
    readFileSync(toml, 'utf8')
      .replaceAll('"edgeplan-custom-worker"', `"${name}"`)
      .replaceAll('"custom-worker-steps', `"${name}-steps`),
  );
  return { dir: target, name, tarball, version, files: listFiles(target) };
}

function readPackage(from: string): z.infer<typeof PackageJson> {
  const path = join(from, 'package.json');
  let parsed: ReturnType<typeof PackageJson.safeParse> | null = null;
  try {
    parsed = PackageJson.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    // missing or not JSON: refused below
  }
  if (!parsed?.success || parsed.data.name !== 'edgeplan') {
    throw new UsageError(`${from} is not the edgeplan package (no package.json named edgeplan there)`);
  }
  return parsed.data;
}

/**
 * A directory's name as the project's: its package, its Worker, its database, and its queues with
 * `-steps-dlq` after it — lower case letters, digits and dashes (a Worker's name takes no other), at
 * most 53 characters (a queue's name, 63 with the suffix); else `my-agent`.
 * @example projectName('My Agent') // 'my-agent'
 */
export function projectName(dirName: string): string {
  const name = dirName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, 53)
    .replace(/^-+|-+$/g, '');
  return name === '' ? 'my-agent' : name;
}

function listFiles(dir: string, under = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, under), { withFileTypes: true })) {
    const path = under ? `${under}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(dir, path));
    else out.push(path);
  }
  return out.sort();
}

/**
 * The README a new project starts with: how to run, configure, deploy and upgrade it, and where in the
 * installed package the rest is.
 * @example projectReadme('my-agent', 'vendor/edgeplan-0.1.0.tgz', '0.1.0') // '# my-agent\n\nAn edgeplan Worker…'
 */
export function projectReadme(name: string, tarball: string, version: string): string {
  return `# ${name}

An edgeplan Worker of your own, made by \`edgeplan init\` from edgeplan ${version}: edgeplan's runtime
(API, dashboard, run objects, queue consumer) and your tools, in \`src/tools.ts\` (\`example.greet\` to
start from). \`npm test\` runs them in a plan in process (\`test/tools.test.ts\`: no Worker, no wrangler). edgeplan itself is \`${tarball}\`, packed from the edgeplan it was made with; keep
\`vendor/\` in the repository, so a teammate's clone and CI install the same.

\`\`\`sh
npm install && npm start     # wrangler dev on http://localhost:8787: the dashboard at /, the API at /v1
curl -s localhost:8787/v1/runs -H 'content-type: application/json' -d '{
  "plan": { "goal": "greet", "steps": [ { "id": "hi", "action": "example.greet", "parameters": { "name": "Ada" } } ] } }'
npx edgeplan runs            # the edgeplan command, from the package
\`\`\`

- **Secrets** (an LLM's key for goals, \`API_TOKEN\`, \`MCP_SERVERS\`, your tools' keys): copy
  \`.dev.vars.example\` to \`.dev.vars\`, which git ignores, and restart \`npm start\`; deployed, \`npx
  wrangler secret put <NAME>\`. With \`API_TOKEN\` set, the API wants it locally too: \`curl -H
  'authorization: Bearer <token>'\`, \`EDGEPLAN_TOKEN=<token> npx edgeplan …\`, the dashboard's "API token".
- **Another port**: \`npm start -- --port 8790\`, then \`EDGEPLAN_URL=http://localhost:8790 npx edgeplan …\`.
- **Deploy**: \`npm run deploy\` creates the D1 database, KV namespace and queues \`wrangler.toml\` names
  if missing, migrates D1 and deploys (\`npx wrangler login\` first). \`npm run deploy -- --dry-run
  --outdir dist\` bundles without an account; \`EDGEPLAN_WRANGLER=$PWD/scripts/fake-wrangler.mjs npm run
  deploy\` rehearses the whole deploy against a pretend account.
- **A newer edgeplan**: pack it (\`npm pack\` in its checkout), copy the tarball over \`${tarball}\`
  (a new version's file in its place), then:
  1. \`npm install ./vendor/<its file>\` — by its path: \`npm install\` or \`npm ci\` alone keeps the
     edgeplan \`package-lock.json\` records (npm's cached copy of the old tarball), and \`npm start\`
     says so. Commit \`vendor/\` and \`package-lock.json\` together: a teammate's \`npm ci\` takes it.
  2. Restart \`npm start\`: \`wrangler dev\` reloads the code by itself, but only \`npm start\`
     applies the D1 migrations a newer edgeplan brings to the local database.
  3. \`npm run typecheck && npm test\`: your tools against its declarations and in its runner.
  4. What \`edgeplan init\` copied — \`scripts/\`, \`wrangler.toml\`, the tsconfigs — is yours and
     stays as it was. \`diff -ru scripts node_modules/edgeplan/examples/custom-worker/scripts\` (and
     \`diff -u wrangler.toml node_modules/edgeplan/examples/custom-worker/wrangler.toml\`, likewise
     \`tsconfig.json\` and \`test/tsconfig.json\`) shows as \`+\` what the newer example has that yours lacks — take what applies
     (its names are \`edgeplan-custom-worker\`'s where yours are ${name}'s).
  5. Deployed: \`npm run deploy\` migrates D1 before the new code serves; what happens to runs in
     flight, and rolling back: \`node_modules/edgeplan/docs/upgrading.md\`.

Once installed, the package holds the rest: \`node_modules/edgeplan/examples/custom-worker/README.md\`,
the guide to this project (your own tools — \`ctx.env\`, \`ctx.signal\`, \`ctx.idempotencyKey\`,
\`ToolError\` — an MCP server of your own, goals planned without a model by \`npm run fake-llm\`, the
deploy); \`node_modules/edgeplan/README.md\` (plans, approval, the client and the CLI) and
\`node_modules/edgeplan/docs/\` (errors, operating, upgrading, security). The running Worker serves the
API reference at \`/docs\`.
`;
}
