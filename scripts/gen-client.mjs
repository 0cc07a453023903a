#!/usr/bin/env node
/**
 * Regenerates what `edgeplan/client` is typed from: the OpenAPI document the app serves
 * (src/client/openapi.json, as `npm start` serves it) and its TypeScript types
 * (src/client/api-types.ts, by openapi-typescript). Both are committed; test/unit/client-types.test.ts
 * fails when they are stale, and says to run this (`npm run gen:client`).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { apiTypesSource, DOCUMENT_ORIGIN } from './client-types.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Inside the repository, so the bundle's packages resolve from its node_modules.
await mkdir(join(root, '.wrangler'), { recursive: true });
const dir = await mkdtemp(join(root, '.wrangler', 'gen-client-'));
try {
  // The app is TypeScript: bundle the two modules the document needs and import them in Node.
  const entry = join(dir, 'entry.ts');
  await writeFile(
    entry,
    `export { createApp } from ${JSON.stringify(join(root, 'src/http/app.ts'))};\n` +
      `export { openApiDocument } from ${JSON.stringify(join(root, 'src/http/openapi.ts'))};\n`,
  );
  const out = join(dir, 'entry.mjs');
  await build({
    entryPoints: [entry],
    outfile: out,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    logLevel: 'error',
  });
  const { createApp, openApiDocument } = await import(pathToFileURL(out).href);
  const doc = openApiDocument(createApp(), DOCUMENT_ORIGIN);
  const json = `${JSON.stringify(doc, null, 2)}\n`;
  await writeFile(join(root, 'src/client/openapi.json'), json);
  await writeFile(join(root, 'src/client/api-types.ts'), await apiTypesSource(doc));
  console.log('wrote src/client/openapi.json and src/client/api-types.ts');
} finally {
  await rm(dir, { recursive: true, force: true });
}
