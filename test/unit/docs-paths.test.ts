/**
 * The files the documentation names in code spans — `src/durable/retention-sweep.ts`,
 * `test/workers/storage-fixtures.test.ts`, `scripts/upgrade-rehearsal.mjs`, `docs/upgrading.md`,
 * `examples/custom-worker/` — are where it says. The link check follows links only; a file renamed or
 * split leaves these pointing at nothing, and an operator or contributor sent there finds no such
 * file. The custom-worker example's README names its own files from its folder.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, ROOT } from './doc-pages';

const PAGES = docPages({ withExample: true });
const EXAMPLE = 'examples/custom-worker';

/**
 * Paths the pages name that are not this repository's: in another project (TEA's planning examples),
 * or a file a team writes itself (the example's "a program of yours — `scripts/release.ts`, say").
 */
const ELSEWHERE = new Set(['examples/planning/', 'scripts/release.ts']);

/** Repository paths in a page's code spans; a placeholder (`v<N>/`, `*`, `…`) is not a path. */
function namedPaths(text: string): string[] {
  const spans = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  return spans.flatMap((span) =>
    [...span.matchAll(/(?:^|[\s(=])((?:src|scripts|test|migrations|docs|examples|bin|\.ci)\/[^\s`'"),:;]+)/g)]
      .map((m) => m[1]!.replace(/[.,]+$/, ''))
      .filter((p) => !/[<>{}*…]/.test(p)),
  );
}

describe('files the documentation names', () => {
  it.each(PAGES)('%s names only files and folders the repository has', (page) => {
    const paths = namedPaths(readFileSync(join(ROOT, page), 'utf8')).filter((p) => !ELSEWHERE.has(p));
    const from = page.startsWith(`${EXAMPLE}/`) ? [ROOT, join(ROOT, EXAMPLE)] : [ROOT];
    expect(paths.filter((p) => !from.some((dir) => existsSync(join(dir, p))))).toEqual([]);
  });
});
