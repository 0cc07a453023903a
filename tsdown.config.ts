import { defineConfig } from 'tsdown';

// The package (SPEC §8): ESM + declarations for `edgeplan`, `edgeplan/worker` and `edgeplan/client`.
// Dependencies stay imports; `cloudflare:*` is the Workers runtime's own and is never bundled.
const shared = {
  format: 'esm',
  platform: 'neutral',
  target: 'es2023',
  dts: true,
  // The build is slow in its declarations, and says so on every run; that is known.
  inputOptions: { checks: { pluginTimings: false } },
} as const;

export default defineConfig([
  {
    ...shared,
    // `ajv-stub`: what a team's Worker aliases `ajv` to (examples/custom-worker/wrangler.toml [alias]).
    entry: {
      index: 'src/index.ts',
      worker: 'src/worker-factory.ts',
      client: 'src/client/index.ts',
      'ajv-stub': 'src/mcp/ajv-stub.ts',
    },
    outDir: 'dist',
    clean: true,
    deps: { neverBundle: [/^cloudflare:/] },
    // The declarations name the Worker's bindings type, `Env`, which is global in a Worker project
    // (wrangler types declares `interface Env`). Declared here too (interfaces merge), so a project
    // without one still type-checks.
    footer: { dts: 'declare global {\n  interface Env {}\n}\n' },
  },
  {
    ...shared,
    // The declarations of `edgeplan/zod-english`, what a team's Worker aliases `zod` to; its modules are
    // scripts/build-zod-english.mjs's (rolldown turns `export * from 'zod/v4/core'` into a copy made at
    // run time, which the Worker's bundler cannot shake: every locale came back).
    entry: { index: 'src/zod-english/index.ts' },
    unbundle: true,
    outDir: 'dist/zod-english',
    clean: false,
    dts: { emitDtsOnly: true },
  },
]);
