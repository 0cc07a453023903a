/**
 * The docs name README sections in words as well as by link — `README, "Retries"`, `the README's "A
 * queue nobody consumes"` — and such a name is not a link the link check follows. Each must still be a
 * heading of the README or the bold lead of one of its paragraphs (`**Retries.**`), so an operator who
 * goes looking finds it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCS_PAGES, ROOT } from './doc-pages';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const PAGES = DOCS_PAGES;

/** Whether the README has a section of that name: a heading, or a paragraph led by it in bold. */
function hasSection(name: string): boolean {
  return README.split('\n').some((line) => {
    const heading = /^#+\s+(.*)$/.exec(line)?.[1]?.trim();
    return heading === name || line.startsWith(`**${name}.**`) || line.startsWith(`**${name}**`);
  });
}

describe('README sections the docs name in words', () => {
  it.each(PAGES)('%s names only sections the README has', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8').replace(/\s+/g, ' ');
    const named = [...text.matchAll(/README(?:'s|’s)?,? "([^"]+)"/g)].map((m) => m[1]!);
    expect(named.filter((name) => !hasSection(name))).toEqual([]);
  });
});
