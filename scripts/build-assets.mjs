#!/usr/bin/env node
/**
 * Builds the Worker's static assets into `public/` (wrangler.toml `[assets]`; run by wrangler's
 * `[build]` before `wrangler dev` and `wrangler deploy`, and by `npm test`): the API reference's
 * Swagger UI files under `public/docs/`. Nothing here is fetched from a CDN at run time, so `/docs`
 * works offline under `wrangler dev`.
 *
 * Usage: node scripts/build-assets.mjs [--out public]
 *
 * With EDGEPLAN_ASSETS_IF_CHANGED=1 (the test and bench servers of scripts/dev-server.mjs set it) the
 * build is skipped when none of the files the last one read has changed since: every `wrangler dev`
 * runs this first, and a test server rebuilding the same files into `public/` while another serves
 * them is both seconds lost and a window of half-written files.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDashboard, DASHBOARD_GZIP_BUDGET } from './build-dashboard.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outArg = process.argv.indexOf('--out');
const out = resolve(root, outArg > 0 ? process.argv[outArg + 1] : 'public');
const require = createRequire(join(root, 'package.json'));

/** The API reference: Swagger UI's own bundle and stylesheet, and the script that starts it on /openapi.json. */
async function buildDocs() {
  const dir = join(out, 'docs');
  await mkdir(dir, { recursive: true });
  const swagger = dirname(require.resolve('swagger-ui-dist/package.json'));
  await copyFile(join(swagger, 'swagger-ui-bundle.js'), join(dir, 'swagger-ui-bundle.js'));
  // Without its source map comment: the map is not served (nor packed), and a browser's developer
  // tools would ask for it and be answered 404.
  const css = await readFile(join(swagger, 'swagger-ui.css'), 'utf8');
  await writeFile(join(dir, 'swagger-ui.css'), css.replace(/\/\*# sourceMappingURL=[^*]*\*\/\s*$/, ''));
  await copyFile(join(root, 'src/ui/reference.css'), join(dir, 'reference.css'));
  await writeFile(join(dir, 'init.js'), REFERENCE_INIT);
}

/**
 * Starts Swagger UI on /openapi.json, with two fixes for a keyboard or screen-reader user: an
 * operation's path is drawn as text, not as a link inside the button that opens the operation (a
 * link nested in a button cannot be reached apart from it; deep links in the address still open an
 * operation), and the servers' select, in a label without words, gets a name.
 */
const REFERENCE_INIT = `const plainPaths = () => ({
  wrapComponents: {
    DeepLink: (Original, system) => (props) => system.React.createElement(Original, { ...props, enabled: false }),
  },
});
window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#reference', deepLinking: true,
  persistAuthorization: true, tryItOutEnabled: false, plugins: [plainPaths] });
new MutationObserver(() => {
  const servers = document.getElementById('servers');
  if (servers && !servers.hasAttribute('aria-label')) servers.setAttribute('aria-label', 'Server');
}).observe(document.getElementById('reference'), { childList: true, subtree: true });
`;

/** The files every build reads besides the dashboard's own inputs. */
const FIXED_INPUTS = [
  'scripts/build-assets.mjs',
  'scripts/build-dashboard.mjs',
  'src/ui/reference.css',
  'src/ui/tsconfig.json',
  'node_modules/swagger-ui-dist/package.json',
  'node_modules/esbuild/package.json',
];
/** What a build leaves in `out`: a file missing or changed there since is built again. */
const OUTPUTS = [
  'app/app.js',
  'app/app.css',
  'docs/swagger-ui-bundle.js',
  'docs/swagger-ui.css',
  'docs/reference.css',
  'docs/init.js',
].map((f) => relative(root, join(out, f)));
/** Where the last build into `out` left what it read (outside `out`: not an asset to serve). */
const stampFile = join(
  root,
  'node_modules/.cache',
  `edgeplan-assets-${createHash('sha256').update(out).digest('hex').slice(0, 16)}.json`,
);
/** One hash of `files`' names and contents (a file gone hashes as gone). */
async function digest(files) {
  const hash = createHash('sha256');
  for (const file of [...files].sort()) {
    hash.update(`\0${file}\0`);
    hash.update(await readFile(join(root, file)).catch(() => 'gone'));
  }
  return hash.digest('hex');
}

if (process.env.EDGEPLAN_ASSETS_IF_CHANGED === '1') {
  const stamp = await readFile(stampFile, 'utf8')
    .then((text) => JSON.parse(text))
    .catch(() => null);
  if (
    Array.isArray(stamp?.inputs) &&
    stamp.inputs.every((f) => typeof f === 'string') &&
    stamp.digest === (await digest([...stamp.inputs, ...OUTPUTS]))
  ) {
    console.log(`assets up to date in ${out}`);
    process.exit(0);
  }
}

const started = Date.now();
await buildDocs();
const app = await buildDashboard(root, out);
const inputs = [...new Set([...FIXED_INPUTS, ...app.inputs])];
await mkdir(dirname(stampFile), { recursive: true });
await writeFile(stampFile, JSON.stringify({ inputs, digest: await digest([...inputs, ...OUTPUTS]) }));
const kib = (n) => (n / 1024).toFixed(1);
console.log(
  `assets built in ${Date.now() - started} ms → ${out} (dashboard ${kib(app.bytes)} KiB, ${kib(app.gzip)} KiB gzip of ${kib(DASHBOARD_GZIP_BUDGET)})`,
);
if (app.gzip > DASHBOARD_GZIP_BUDGET) {
  console.error('the dashboard is over its gzip budget');
  process.exit(1);
}
