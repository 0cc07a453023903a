/** With an Access identity the approver is who is signed in; without one the body goes as sent. */
import { describe, expect, it } from 'vitest';
import { signedInApprover } from '../../src/http/access/signed-in-approver';

const ada = { via: 'access', identity: 'ada@example.com' } as const;

describe('signedInApprover', () => {
  it('leaves a body alone for a token holder or an anonymous caller', () => {
    const body = { decision: 'approve', approver: 'Anyone' };
    expect(signedInApprover(body, { via: 'token' })).toEqual({ ok: true, body });
    expect(signedInApprover(body, { via: 'anonymous' })).toEqual({ ok: true, body });
  });

  it('sets the identity when the body names none, the same one, or an empty name', () => {
    for (const approver of [undefined, null, '', 'ada@example.com', '  ada@example.com '])
      expect(signedInApprover({ decision: 'reject', approver }, ada)).toEqual({
        ok: true,
        body: { decision: 'reject', approver: 'ada@example.com' },
      });
  });

  it('refuses another name, saying who is signed in', () => {
    const r = signedInApprover({ decision: 'approve', approver: 'Mallory' }, ada);
    expect(r).toMatchObject({
      ok: false,
      message: expect.stringContaining('signed in through Cloudflare Access as ada@example.com'),
    });
    expect(signedInApprover({ decision: 'approve', approver: 7 }, ada).ok).toBe(false);
  });

  it('hands a body that is not an object on as it is, for the run’s schema to refuse', () => {
    expect(signedInApprover([1], ada)).toEqual({ ok: true, body: [1] });
    expect(signedInApprover('approve', ada)).toEqual({ ok: true, body: 'approve' });
  });
});
