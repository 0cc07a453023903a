import { describe, expect, it } from 'vitest';
import {
  TOKEN_PREFIX,
  checkApprovalToken,
  isApprovalTokenShaped,
  mintApprovalToken,
} from '../../src/approval/tokens';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const HOUR = 3_600_000;

describe('approval tokens', () => {
  it('mints a URL-safe token with at least 32 random bytes and stores only its SHA-256', async () => {
    const { token, record } = await mintApprovalToken(NOW, HOUR);
    expect(token).toMatch(/^apv_[A-Za-z0-9_-]{43}$/);
    expect(encodeURIComponent(token)).toBe(token);
    expect(record).toEqual({
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      expires_at: NOW + HOUR,
      used: false,
    });
    expect(record.hash).not.toContain(token.slice(TOKEN_PREFIX.length));

    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
    expect(record.hash).toBe(hex);
  });

  it('never mints the same token twice', async () => {
    const tokens = await Promise.all(Array.from({ length: 200 }, () => mintApprovalToken(NOW, HOUR)));
    expect(new Set(tokens.map((t) => t.token)).size).toBe(200);
  });

  it('mints only tokens of the shape the Worker lets through to the run, and nothing else has it', async () => {
    const tokens = await Promise.all(Array.from({ length: 200 }, () => mintApprovalToken(NOW, HOUR)));
    expect(tokens.every((t) => isApprovalTokenShaped(t.token))).toBe(true);
    const { token } = tokens[0]!;
    for (const other of [
      undefined,
      '',
      'apv_',
      token.slice(0, -1),
      `${token}A`,
      token.replace('apv_', 'apx_'),
      `${token.slice(0, -1)}=`,
      `${token.slice(0, -1)}+`,
    ]) {
      expect(isApprovalTokenShaped(other)).toBe(false);
    }
  });

  it('accepts the minted token before it expires', async () => {
    const { token, record } = await mintApprovalToken(NOW, HOUR);
    expect(await checkApprovalToken(record, token, NOW + HOUR - 1)).toEqual({ ok: true });
  });

  it('refuses a token once its expiry has passed with token_expired', async () => {
    const { token, record } = await mintApprovalToken(NOW, HOUR);
    expect(await checkApprovalToken(record, token, NOW + HOUR)).toEqual({
      ok: false,
      code: 'token_expired',
      message: 'This approval link expired at 2026-01-01T13:00:00.000Z',
    });
  });

  it('refuses a token the caller has marked used with token_used', async () => {
    const { token, record } = await mintApprovalToken(NOW, HOUR);
    const check = await checkApprovalToken({ ...record, used: true }, token, NOW);
    expect(check).toMatchObject({ ok: false, code: 'token_used' });
  });

  it('refuses a wrong token with invalid_token, even for a used or expired record', async () => {
    const { token, record } = await mintApprovalToken(NOW, HOUR);
    const other = await mintApprovalToken(NOW, HOUR);
    const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    for (const presented of [other.token, flipped, '', 'apv_', 'x'.repeat(10_000)]) {
      expect(await checkApprovalToken(record, presented, NOW)).toMatchObject({
        ok: false,
        code: 'invalid_token',
      });
    }
    const spent = { ...record, used: true, expires_at: NOW - 1 };
    expect(await checkApprovalToken(spent, other.token, NOW)).toMatchObject({
      ok: false,
      code: 'invalid_token',
    });
  });

  it("refuses another run's token, since each run stores its own record", async () => {
    const runA = await mintApprovalToken(NOW, HOUR);
    const runB = await mintApprovalToken(NOW, HOUR);
    expect(await checkApprovalToken(runB.record, runA.token, NOW)).toMatchObject({ code: 'invalid_token' });
  });

  it('rejects a non-positive time to live when minting', async () => {
    await expect(mintApprovalToken(NOW, 0)).rejects.toThrow(/ttlMs > 0/);
    await expect(mintApprovalToken(Number.NaN, HOUR)).rejects.toThrow(RangeError);
  });
});
