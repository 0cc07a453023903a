import { defineConfig } from 'tsdown';

// The package (SPEC §8): ESM + declarations for `edgeplan`, `edgeplan/worker` and `edgeplan/client`.
// Dependencies stay imports; `cloudflare:*` is the Workers runtime's own and is never bundled.
export default defineConfig({
  // `ajv-stub`: what a team's Worker aliases `ajv` to (examples/custom-worker/wrangler.toml [alias]).
  entry: {
    index: 'src/index.ts',
    worker: 'src/worker-factory.ts',
    client: 'src/client/index.ts',
    'ajv-stub': 'src/mcp/ajv-stub.ts',
  },
  format: 'esm',
  platform: 'neutral',
  target: 'es2023',
  outDir: 'dist',
  dts: true,
  clean: true,
  deps: { neverBundle: [/^cloudflare:/] },
  // The build is slow in its declarations, and says so on every run; that is known.
  inputOptions: {
    checks: { pluginTimings: false },
    // Declaration modules have no side effects: without this, a declaration file keeps the imports of
    // every module it bundled from, used or not (worker.d.ts imported `OpenAPIHono`, index.d.ts the MCP
    // SDK's `Client`), and a consumer's type check then loads those packages' declarations too — the
    // SDK's need DOM's `HeadersInit`, an error under `lib: ["ES2023"]` with `skipLibCheck: false`.
    // The JavaScript is not affected: only `.d.ts` ids match.
    treeshake: { moduleSideEffects: (id: string) => !/\.d\.[cm]?ts$/.test(id) },
  },
  // The declarations name the Worker's bindings type, `Env`, which is global in a Worker project
  // (wrangler types declares `interface Env`). Declared here too (interfaces merge), so a project
  // without one still type-checks.
  footer: { dts: 'declare global {\n  interface Env {}\n}\n' },
});
