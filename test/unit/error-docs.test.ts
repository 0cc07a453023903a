/**
 * docs/errors.md lists every error code (src/error-codes.ts) with its status and meaning; a code
 * added, removed or reworded without regenerating the page fails here.
 */
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/error-codes';
import source from '../../src/error-codes.ts?raw';
import committed from '../../docs/errors.md?raw';
import { errorDocs } from '../../scripts/error-docs';

describe('docs/errors.md', () => {
  it('is what `npm run gen:docs` writes from the table of error codes now', () => {
    expect(committed, 'stale: run `npm run gen:docs` and commit docs/errors.md').toBe(errorDocs(source));
  });

  it('has a row for every code, with the status the API sends it with', () => {
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      expect(committed).toContain(`| \`${code}\` | ${status ?? '—'} |`);
    }
  });

  it('refuses a code the table lists outside a section', () => {
    const unsectioned = source.replace(/^\s*\/\/ -{4} .*$/gm, '');
    expect(() => errorDocs(unsectioned)).toThrow(
      /codes outside a section of src\/error-codes\.ts: invalid_request/,
    );
  });
});
