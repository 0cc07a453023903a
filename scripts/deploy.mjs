#!/usr/bin/env node
/**
 * `npm run deploy`: this repository's Worker deployed as `edgeplan deploy` deploys any (src/deploy):
 * what wrangler.toml needs and is missing is created by name, its ids go into wrangler.deploy.toml,
 * D1 is migrated remotely, and `wrangler deploy` runs. Arguments go to `wrangler deploy`;
 * `npm run deploy -- --dry-run --outdir /tmp/x` needs no account.
 * @example
 * npx wrangler login && npm run deploy
 */
import { deploy } from '../src/deploy/deploy.ts';

try {
  deploy(process.argv.slice(2));
} catch (err) {
  console.error(`deploy: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
