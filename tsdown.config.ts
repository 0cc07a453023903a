import { defineConfig } from 'tsdown';

// The package (SPEC §8): ESM + declarations for `edgeplan`, `edgeplan/worker` and `edgeplan/client`.
// Dependencies stay imports; `cloudflare:*` is the Workers runtime's own and is never bundled.
export default defineConfig({
  entry: { index: 'src/index.ts', worker: 'src/worker-factory.ts', client: 'src/client/index.ts' },
  format: 'esm',
  platform: 'neutral',
  target: 'es2023',
  outDir: 'dist',
  dts: true,
  clean: true,
  deps: { neverBundle: [/^cloudflare:/] },
  // The build is slow in its declarations, and says so on every run; that is known.
  inputOptions: { checks: { pluginTimings: false } },
});
