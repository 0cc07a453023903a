#!/usr/bin/env node
/**
 * Builds the `edgeplan` command (src/cli/main.ts) into one self-contained file: its libraries
 * (commander, log-update, @clack/prompts) bundled in, so start-up reads one file and the package's
 * users install nothing for it. `npm run build` writes dist/cli.js (which the package's `bin`,
 * bin/edgeplan.mjs, runs); tests build to their own path.
 *
 * Usage: node scripts/build-cli.mjs [--out dist/cli.js]
 */
import { chmod, readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outArg = process.argv.indexOf('--out');
const outfile = resolve(root, outArg > 0 ? process.argv[outArg + 1] : 'dist/cli.js');
const { version } = JSON.parse(await readFile(resolve(root, 'package.json'), 'utf8'));

await build({
  entryPoints: [resolve(root, 'src/cli/main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minify: true,
  legalComments: 'none',
  define: { 'process.env.EDGEPLAN_CLI_VERSION': JSON.stringify(version) },
  // Some bundled CommonJS calls require(); give the ESM file one.
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: 'error',
});
await chmod(outfile, 0o755);
console.log(`built ${outfile}`);
