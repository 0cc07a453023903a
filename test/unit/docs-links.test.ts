/**
 * The documentation's own links lead somewhere: every relative link in README.md, docs/*.md and the
 * example's README — inline, a reference definition or an HTML href/src — names a file of the
 * repository, none leaves it (`../`, a root-relative path, `file:`), and every `#anchor` names a
 * heading of the page it points at — as GitHub renders them. A section renamed or moved out of the README breaks the links that
 * other sections (and the docs) make to it; this says which.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, ROOT } from './doc-pages';

const PAGES = docPages({ withExample: true });

/** Markdown without its fenced code, where `](…)` is code, not a link. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors of a page's headings; a repeated heading's are numbered, as GitHub does (`x`, `x-1`). */
function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of prose(readFileSync(page, 'utf8')).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = slug(heading ?? '');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/**
 * A page's link targets: inline links `[text](target)`, reference definitions `[id]: target` and HTML
 * `href="…"` / `src="…"` — a reader follows each of them alike.
 */
function linkTargets(text: string): string[] {
  const body = prose(text);
  return [
    ...[...body.matchAll(/\]\(([^)\s]+)\)/g)],
    ...[...body.matchAll(/^ {0,3}\[[^\]\n]+\]:\s*<?([^\s>]+)>?/gm)],
    ...[...body.matchAll(/<(?:a|img)\s[^>]*?\b(?:href|src)="([^"]+)"/gi)],
  ].map(([, link = '']) => link);
}

/** Each relative link of a page (its text, or as given) that does not lead where it says, as `page: link (why)`. */
function deadLinks(page: string, text = readFileSync(join(ROOT, page), 'utf8')): string[] {
  const dead: string[] = [];
  const path = join(ROOT, page);
  for (const link of linkTargets(text)) {
    // A file: URL or a path from the file system's root names this machine's files, not the repository's
    // (and a root-relative link resolves differently on GitHub and in the packed package).
    if (/^file:/i.test(link) || link.startsWith('/')) {
      dead.push(`${page}: ${link} (outside the repository)`);
      continue;
    }
    if (!link || /^[a-z][a-z+.-]*:/i.test(link)) continue; // https:, mailto:
    const [file = '', anchor] = link.split('#');
    const target = file ? join(dirname(path), file) : path;
    if (!target.startsWith(ROOT + '/')) dead.push(`${page}: ${link} (outside the repository)`);
    else if (!existsSync(target)) dead.push(`${page}: ${link} (no ${relative(ROOT, target)})`);
    else if (anchor && target.endsWith('.md') && !anchors(target).has(anchor))
      dead.push(`${page}: ${link} (no heading #${anchor} in ${relative(ROOT, target)})`);
  }
  return dead;
}

describe('the documentation’s links', () => {
  it('finds the links it checks: a README section linked by another is an anchor', () => {
    expect(anchors(join(ROOT, 'README.md'))).toContain('client-and-cli');
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('](#client-and-cli)');
  });

  it.each(PAGES)('%s: every relative link names a file, and every #anchor a heading there', (page) => {
    expect(deadLinks(page)).toEqual([]);
  });

  // The package's README and the example's are read in node_modules/edgeplan: a link there to a page
  // the tarball leaves out (its `files`) is dead for everyone who installed it.
  it.each(PAGES)('%s: every relative link names a file the packed package ships', (page) => {
    const files = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    const shipped = (path: string) =>
      path === 'README.md' ||
      path === 'package.json' ||
      files.some((f) => path === f || path.startsWith(`${f}/`));
    const unshipped = linkTargets(readFileSync(join(ROOT, page), 'utf8'))
      .map((link) => link.split('#')[0] ?? '')
      .filter((link) => link && !link.startsWith('/') && !/^[a-z][a-z+.-]*:/i.test(link))
      .map((link) => relative(ROOT, join(dirname(join(ROOT, page)), link)).replace(/\/$/, ''))
      .filter((path) => !shipped(path));
    expect(unshipped, 'add them to package.json "files", or link the repository on GitHub').toEqual([]);
  });

  it('names a link to a missing file or heading, and leaves code and other sites alone', () => {
    expect(slug('Deploy to `Cloudflare` (v2)')).toBe('deploy-to-cloudflare-v2');
    const page = [
      'See [a](#no-such-section), [b](docs/nope.md), [c](docs/SPEC.md#nope), [d](../outside.md),',
      '[ok](#quick-start), [ok](docs/SPEC.md), [site](https://example.com/#x).',
      '[e](/work/shared/STYLE.md), [f](file:///work/shared/STYLE.md), <a href="docs/gone.md">g</a>,',
      '[h][spec] and <img src="docs/logo.png">.',
      '',
      '[spec]: docs/SPEC.md#no-such-heading',
      '```md',
      '[in code](#not-checked)',
      '```',
    ].join('\n');
    expect(deadLinks('README.md', page)).toEqual([
      'README.md: #no-such-section (no heading #no-such-section in README.md)',
      'README.md: docs/nope.md (no docs/nope.md)',
      'README.md: docs/SPEC.md#nope (no heading #nope in docs/SPEC.md)',
      'README.md: ../outside.md (outside the repository)',
      'README.md: /work/shared/STYLE.md (outside the repository)',
      'README.md: file:///work/shared/STYLE.md (outside the repository)',
      'README.md: docs/SPEC.md#no-such-heading (no heading #no-such-heading in docs/SPEC.md)',
      'README.md: docs/gone.md (no docs/gone.md)',
      'README.md: docs/logo.png (no docs/logo.png)',
    ]);
  });
});
