import { describe, expect, it } from 'vitest';
import { ERROR_CODES, isErrorCode } from '../../src/error-codes';
import { ERROR_STATUS } from '../../src/http/errors';
import { fs } from '../../scripts/eval/node-api';

/** Every `.ts` file under `dir`. */
function sources(dir: string): string[] {
  return fs()
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? sources(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
    );
}

describe('the one table of error codes', () => {
  it('holds every code the source writes as a literal (`code: "…"`, new …Error("…"))', () => {
    const missing = new Set<string>();
    for (const file of sources('src')) {
      const text = fs().readFileSync(file, 'utf8');
      for (const m of text.matchAll(
        /\bcode: '([a-z_]+)'|(?:Error|issueAt|jsonError\(c,)\(?\s*'([a-z_]+)'/g,
      )) {
        const code = m[1] ?? m[2]!;
        // zod's own issue code for a custom refinement is not ours.
        if (code !== 'custom' && !isErrorCode(code)) missing.add(`${code} (${file})`);
      }
    }
    expect([...missing]).toEqual([]);
  });

  it('gives the API a status for exactly the codes that have one', () => {
    const withStatus = Object.entries(ERROR_CODES).filter(([, row]) => row.status !== null);
    expect(Object.keys(ERROR_STATUS).sort()).toEqual(withStatus.map(([code]) => code).sort());
    for (const [code, row] of withStatus)
      expect(ERROR_STATUS[code as keyof typeof ERROR_STATUS]).toBe(row.status);
  });

  it('says what every code means', () => {
    for (const row of Object.values(ERROR_CODES)) expect(row.about.length).toBeGreaterThan(10);
  });
});
