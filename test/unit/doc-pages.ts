/**
 * The repository's documentation pages, as the docs checks read them: the README, every page in
 * `docs/`, and (`withExample`) the custom-worker example's README — paths relative to {@link ROOT}.
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository's root. */
export const ROOT = resolve(import.meta.dirname, '../..');

/** The pages in `docs/`, as `docs/<name>.md`. */
export const DOCS_PAGES = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);

/** The README and the pages in `docs/`; `withExample`: the custom-worker example's README too. */
export function docPages({ withExample }: { withExample: boolean }): string[] {
  return ['README.md', ...DOCS_PAGES, ...(withExample ? ['examples/custom-worker/README.md'] : [])];
}
