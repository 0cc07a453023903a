// The repository's TypeScript bundled into one ES module Node runs (the benches that run edgeplan's code
// in Node: the object bench, the in-process peer), with esbuild.
import { build } from 'esbuild';

/** Bundles `entry` into `outfile`; `alias` replaces modules Node has not (`cloudflare:workers`). */
export async function bundleForNode(entry, outfile, alias = {}) {
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    alias,
    // Some dependencies (yaml) require Node built-ins at run time.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
}
