#!/usr/bin/env node
/**
 * The package's `bin`: runs the `edgeplan` command, dist/cli.js, which `npm run build` writes (npm pack
 * runs it). This file is in the repository so the bin exists before a build: `npx edgeplan` in a fresh
 * clone links it and says to build, where a bin pointing at the missing dist/cli.js was not linked —
 * npx answered `edgeplan: not found`, and kept answering so after the build, from the install it had
 * cached without the link.
 */
import { existsSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const message = `dist/cli.js is not built yet: run \`npm run build\` in ${root}, then run the command again`;
  // As the command says a usage error: one line of JSON on stdout with --json, else on stderr; exit 2.
  if (process.argv.slice(2).includes('--json'))
    process.stdout.write(`${JSON.stringify({ error: { code: 'usage', message } })}\n`);
  else process.stderr.write(`edgeplan: ${message}\n`);
  process.exit(2);
}
await import(cli.href);
