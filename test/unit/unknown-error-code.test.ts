/**
 * An EdgeplanError whose code is not in the error table (a team's Worker code throwing one with its own
 * code, from JavaScript where the type does not stop it): answered 500 with that code and message, and
 * logged `unknown_error_code` (docs/operating.md) so the operator learns of it.
 */
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EdgeplanError } from '../../src/errors';
import type { ErrorCode } from '../../src/error-codes';
import { handleError } from '../../src/http/on-error';

describe('an error code the table does not have', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is answered 500 with its code and message, and logged unknown_error_code', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(String(line)));
    const app = new Hono();
    app.onError(handleError);
    app.get('/team', () => {
      throw new EdgeplanError('quota_gone' as ErrorCode, 'The team quota is spent');
    });
    const res = await app.request('/team');
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({
      error: { code: 'quota_gone', message: 'The team quota is spent' },
    });
    const logged = lines.map((l) => JSON.parse(l) as { level: string; event: string; message: string });
    expect(logged).toEqual([
      expect.objectContaining({
        level: 'error',
        event: 'unknown_error_code',
        message: 'Error code "quota_gone" has no row in ERROR_STATUS',
      }),
    ]);
  });
});
