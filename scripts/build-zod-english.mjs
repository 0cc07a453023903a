#!/usr/bin/env node
/**
 * Builds `edgeplan/zod-english` (src/zod-english: zod with English its only locale) into
 * dist/zod-english, file for file: what a team's Worker aliases `zod` to (examples/custom-worker's
 * wrangler.toml [alias]), as edgeplan's own Worker aliases it to the source. Not bundled, as tsdown
 * would: its `core` and `locales` are namespaces re-exporting zod's, which a bundler only builds at
 * run time from zod's whole namespaces — every locale kept. Left as `export * as`, the Worker's own
 * bundle (wrangler's esbuild, zod resolved) shakes them as it does ours. The declarations are zod's.
 *
 * Usage: node scripts/build-zod-english.mjs   (part of `npm run build`, after tsdown cleans dist/)
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = resolve(root, 'src/zod-english');
const out = resolve(root, 'dist/zod-english');
await mkdir(out, { recursive: true });

for (const file of (await readdir(src)).filter((f) => f.endsWith('.ts'))) {
  const { code } = await transform(await readFile(resolve(src, file), 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'es2023',
  });
  // A sibling is './core' in the source (resolved by the bundler); an ES module names its file.
  const js = code.replace(/from "(\.\/[\w-]+)"/g, 'from "$1.js"');
  await writeFile(resolve(out, file.replace(/\.ts$/, '.js')), js);
}
await writeFile(
  resolve(out, 'index.d.ts'),
  "// zod's own types: this module is zod with English its only locale (`locales` holds `en` only).\n" +
    "export * from 'zod';\nexport { z, default } from 'zod';\n",
);
console.log(`built ${out}`);
