/**
 * The dashboard's bundle: src/ui (Preact + dagre, typed TSX) → public/app/app.js, and its stylesheet
 * → public/app/app.css. Called by scripts/build-assets.mjs; returns the gzip size (budget: 100 KiB).
 */
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export const DASHBOARD_GZIP_BUDGET = 100 * 1024;

/** Builds into `<out>/app/`; returns `{ bytes, gzip }` of app.js + app.css and the files it read. */
export async function buildDashboard(root, out) {
  const dir = join(out, 'app');
  await mkdir(dir, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    metafile: true,
    entryPoints: [join(root, 'src/ui/main.tsx')],
    outfile: join(dir, 'app.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    tsconfig: join(root, 'src/ui/tsconfig.json'),
    logLevel: 'error',
  });
  await copyFile(join(root, 'src/ui/style.css'), join(dir, 'app.css'));
  const files = await Promise.all(['app.js', 'app.css'].map((f) => readFile(join(dir, f))));
  const bytes = files.reduce((n, f) => n + f.length, 0);
  const gzip = files.reduce((n, f) => n + gzipSync(f, { level: 9 }).length, 0);
  const inputs = [...Object.keys(result.metafile.inputs), 'src/ui/style.css'];
  return { bytes, gzip, inputs };
}
