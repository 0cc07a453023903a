#!/usr/bin/env node
/**
 * Builds the Worker's static assets into `public/` (wrangler.toml `[assets]`; run by wrangler's
 * `[build]` before `wrangler dev` and `wrangler deploy`, and by `npm test`): the API reference's
 * Swagger UI files under `public/docs/`. Nothing here is fetched from a CDN at run time, so `/docs`
 * works offline under `wrangler dev`.
 *
 * Usage: node scripts/build-assets.mjs [--out public]
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
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
  await copyFile(join(swagger, 'swagger-ui.css'), join(dir, 'swagger-ui.css'));
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

const started = Date.now();
await buildDocs();
const app = await buildDashboard(root, out);
const kib = (n) => (n / 1024).toFixed(1);
console.log(
  `assets built in ${Date.now() - started} ms → ${out} (dashboard ${kib(app.bytes)} KiB, ${kib(app.gzip)} KiB gzip of ${kib(DASHBOARD_GZIP_BUDGET)})`,
);
if (app.gzip > DASHBOARD_GZIP_BUDGET) {
  console.error('the dashboard is over its gzip budget');
  process.exit(1);
}
