/**
 * Where the documentation writes a status and an error code together (`503 run_newer_format`), the
 * pair is the one the API sends (src/error-codes.ts). An operator reading docs/operating.md or
 * docs/upgrading.md matches those pairs against what a client got; a code whose status changed, or a
 * finding's code written as if it were the answer's, would send them looking for the wrong thing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docPages, ROOT } from './doc-pages';
import { ERROR_CODES } from '../../src/error-codes';

const PAGES = docPages({ withExample: true });

const statusOf = (code: string): number | null | undefined =>
  Object.hasOwn(ERROR_CODES, code) ? ERROR_CODES[code as keyof typeof ERROR_CODES].status : undefined;

describe('status and code pairs in the documentation', () => {
  it.each(PAGES)('%s writes each code with the status the API sends it with', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const wrong = [...text.matchAll(/`(\d{3}) ([a-z][a-z_]*)`/g)]
      .map((m) => ({ pair: m[0], status: Number(m[1]), code: m[2]! }))
      .filter(({ status, code }) => statusOf(code) !== status)
      .map(
        ({ pair, code }) => `${pair}: ${code} is ${String(statusOf(code) ?? 'no code the API answers with')}`,
      );
    expect(wrong).toEqual([]);
  });
});
