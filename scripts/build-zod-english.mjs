#!/usr/bin/env node
// `npm run build` (after tsdown): the modules of `edgeplan/zod-english` (src/zod-english), what a team's
// Worker aliases `zod` to (examples/custom-worker/wrangler.toml [alias]) so its bundle carries
// English alone, as this repository's Worker does. Each module is transformed on its own, its
// `export * from` and `export * as` kept as written: only then can the Worker's bundler leave out
// zod's other locales (bundled by tsdown, they became copies made at run time, and all came back).
// Usage: node scripts/build-zod-english.mjs [--out dist/zod-english]
import { transform } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const at = process.argv.indexOf('--out');
const out = at > 0 ? process.argv[at + 1] : join(root, 'dist/zod-english');
const src = join(root, 'src/zod-english');
mkdirSync(out, { recursive: true });
for (const name of readdirSync(src).filter((f) => f.endsWith('.ts'))) {
  const { code } = await transform(readFileSync(join(src, name), 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'es2023',
  });
  // Node resolves ESM paths as written: `./classic` is `./classic.js` in the package.
  writeFileSync(
    join(out, name.replace(/\.ts$/, '.js')),
    code.replace(/from (["'])(\.\/[^"']+)\1/g, 'from $1$2.js$1'),
  );
}
console.log(`built ${out}`);
