// The packed package in the setups other teams have, beside the example's own: run by
// `npm run check:example` on the project it installed (or `node scripts/package-consumers.mjs <dir>`
// on any project with the tarball, zod, @types/node and @cloudflare/workers-types installed). Checks
// - each export's files, and every source map a file names, are in the package;
// - the README's client and library examples type-check against the packed declarations with the
//   strictest settings a team may have (`strict`, `exactOptionalPropertyTypes`,
//   `noUncheckedIndexedAccess`, `skipLibCheck: false`): the client with `moduleResolution: bundler`
//   and DOM, the library with `nodenext` and no DOM (a Node program's setup);
// - the project's Worker with the types `wrangler types` writes (Cloudflare's own setup) instead of
//   @cloudflare/workers-types, with the same settings;
// - `require()` of `edgeplan` and `edgeplan/client` from CommonJS (Node ≥ 20.19 loads ES modules so);
// - `edgeplan/client` bundled for a browser (esbuild, as Vite bundles it): nothing from Node or
//   `cloudflare:*` reaches it; its size.
// Prints one line per check; throws with the tool's output on the first that fails.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const STRICTEST = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
  noEmit: true,
};

/** Runs `cmd` in `cwd`; on failure throws with what it printed, prefixed by `what`. */
function run(what, cmd, args, cwd, env = process.env) {
  try {
    return execFileSync(cmd, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    throw new Error(`${what} failed:\n${err.stdout ?? ''}${err.stderr ?? err.message}`);
  }
}

/** Every file under `dir` (not its node_modules). */
function* filesUnder(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else yield path;
  }
}

/** A README example of this repository as a team writes it: importing the package, not src/. */
function readmeExample(file, from, to) {
  const text = readFileSync(join(root, file), 'utf8');
  if (!text.includes(`from '${from}'`)) throw new Error(`${file} no longer imports ${from}`);
  return text.replace(`from '${from}'`, `from '${to}'`);
}

/**
 * Checks the package installed in `app` as the setups above meet it; `env` is the environment `tsc`,
 * `wrangler` and `node` run in (PATH naming them). Returns the lines it printed.
 */
export async function checkConsumers(app, env = process.env) {
  const lines = [];
  const say = (line) => {
    lines.push(line);
    console.log(`package-consumers: ${line}`);
  };
  // What an import needs is in the package: each export's declarations and code; and a source map a
  // file names (for a debugger, a browser's developer tools) is there too.
  const pkg = join(app, 'node_modules/edgeplan');
  const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  const missing = [];
  for (const [name, target] of Object.entries(manifest.exports)) {
    for (const file of typeof target === 'string' ? [target] : Object.values(target))
      if (!existsSync(join(pkg, file))) missing.push(`${name}: ${file}`);
  }
  for (const file of filesUnder(pkg)) {
    if (!/\.(?:m?js|css)$/.test(file)) continue;
    for (const [, map] of readFileSync(file, 'utf8').matchAll(/[#@] sourceMappingURL=([^\s*]+)/g))
      if (!map.startsWith('data:') && !existsSync(join(dirname(file), map)))
        missing.push(`${relative(pkg, file)}'s source map ${map}`);
  }
  if (missing.length > 0) throw new Error(`the packed package lacks ${missing.join('; ')}`);
  say(`every export's files, and every source map a file names, are in the package`);

  const dir = join(app, 'consumers');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  const tsconfig = (name, compilerOptions, include) =>
    writeFileSync(
      join(dir, name),
      JSON.stringify({ compilerOptions: { ...STRICTEST, ...compilerOptions }, include }),
    );

  writeFileSync(
    join(dir, 'client.ts'),
    readmeExample('test/client-consumer/readme-example.ts', '../../src/client', 'edgeplan/client'),
  );
  tsconfig(
    'tsconfig.client.json',
    {
      target: 'ES2023',
      lib: ['ES2023', 'DOM'],
      module: 'ESNext',
      moduleResolution: 'bundler',
      types: ['node'],
    },
    ['client.ts'],
  );
  run('tsc (edgeplan/client, bundler)', 'tsc', ['-p', join(dir, 'tsconfig.client.json')], dir, env);
  say('the README client example type-checks against the packed edgeplan/client (bundler, strictest)');

  writeFileSync(
    join(dir, 'library.ts'),
    readmeExample('test/library-consumer/readme-example.ts', '../../src/index', 'edgeplan'),
  );
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  tsconfig(
    'tsconfig.library.json',
    { target: 'ES2023', lib: ['ES2023'], module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'] },
    ['library.ts'],
  );
  run('tsc (edgeplan, nodenext)', 'tsc', ['-p', join(dir, 'tsconfig.library.json')], dir, env);
  say('the README library example type-checks against the packed edgeplan (nodenext, no DOM, strictest)');

  // The Worker with the runtime types `wrangler types` generates from its wrangler.toml.
  run('wrangler types', 'wrangler', ['types', join(dir, 'worker-configuration.d.ts')], app, env);
  tsconfig(
    'tsconfig.worker.json',
    {
      target: 'ES2023',
      lib: ['ES2023'],
      module: 'ESNext',
      moduleResolution: 'bundler',
      types: [],
      allowImportingTsExtensions: true,
    },
    ['worker-configuration.d.ts', '../src'],
  );
  run('tsc (edgeplan/worker, wrangler types)', 'tsc', ['-p', join(dir, 'tsconfig.worker.json')], dir, env);
  say("src/index.ts type-checks with wrangler types' runtime types (strictest)");

  writeFileSync(
    join(dir, 'require.cjs'),
    "const { createClient } = require('edgeplan/client');\n" +
      "const { LocalRunner } = require('edgeplan');\n" +
      'console.log(typeof createClient, typeof LocalRunner);\n',
  );
  const required = run('require() from CommonJS', process.execPath, [join(dir, 'require.cjs')], dir, env);
  if (required.trim() !== 'function function') throw new Error(`require() gave ${required}`);
  say(`require('edgeplan') and require('edgeplan/client') load from CommonJS (Node ${process.version})`);

  writeFileSync(
    join(dir, 'browser.js'),
    "import { createClient } from 'edgeplan/client';\nglobalThis.client = createClient({ baseUrl: '/' });\n",
  );
  const bundled = await build({
    entryPoints: [join(dir, 'browser.js')],
    absWorkingDir: dir,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(bundled.metafile.inputs);
  const foreign = inputs.filter((i) => i !== 'browser.js' && !i.includes('node_modules/edgeplan/dist/'));
  const code = bundled.outputFiles[0].text;
  const builtins = [...new Set(code.match(/\b(?:node|cloudflare):[a-z_/]+/g) ?? [])];
  if (foreign.length > 0 || builtins.length > 0)
    throw new Error(`edgeplan/client's browser bundle takes ${[...foreign, ...builtins].join(', ')}`);
  const kb = (n) => (n / 1024).toFixed(1);
  say(
    `edgeplan/client bundles for a browser from ${inputs.length - 1} files of the package alone: ` +
      `${kb(code.length)} KiB minified, ${kb(gzipSync(code).length)} KiB gzip`,
  );
  return lines;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const app = process.argv[2];
  if (!app) {
    console.error('usage: node scripts/package-consumers.mjs <project with edgeplan installed>');
    process.exit(2);
  }
  const PATH = `${join(root, 'node_modules/.bin')}:${process.env.PATH ?? ''}`;
  await checkConsumers(app, { ...process.env, PATH });
}
