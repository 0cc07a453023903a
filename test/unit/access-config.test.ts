/**
 * ACCESS_TEAM_DOMAIN and ACCESS_AUD read into what an Access token must match: off without either,
 * misconfigured (saying the fix) with one alone or a team domain that is not an https origin.
 */
import { describe, expect, it } from 'vitest';
import { accessConfig } from '../../src/http/access/config';

const AUD = 'aud-tag';

describe('accessConfig', () => {
  it('is off with neither variable, or both empty', () => {
    expect(accessConfig({})).toEqual({ kind: 'off' });
    expect(accessConfig({ ACCESS_TEAM_DOMAIN: ' ', ACCESS_AUD: '' })).toEqual({ kind: 'off' });
  });

  it('takes an https team domain as the issuer, with or without a trailing slash, and its certs URL', () => {
    for (const domain of ['https://acme.cloudflareaccess.com', 'https://acme.cloudflareaccess.com/ '])
      expect(accessConfig({ ACCESS_TEAM_DOMAIN: domain, ACCESS_AUD: ` ${AUD} ` })).toEqual({
        kind: 'on',
        issuer: 'https://acme.cloudflareaccess.com',
        audience: AUD,
        certsUrl: 'https://acme.cloudflareaccess.com/cdn-cgi/access/certs',
      });
  });

  it('takes plain http for a loopback host only (local tests)', () => {
    for (const host of ['127.0.0.1:9781', 'localhost:9781', '[::1]:9781'])
      expect(accessConfig({ ACCESS_TEAM_DOMAIN: `http://${host}`, ACCESS_AUD: AUD }).kind).toBe('on');
    const plain = accessConfig({ ACCESS_TEAM_DOMAIN: 'http://acme.cloudflareaccess.com', ACCESS_AUD: AUD });
    expect(plain).toMatchObject({
      kind: 'misconfigured',
      message: expect.stringMatching(/must be an https URL/),
    });
  });

  it.each([
    [
      { ACCESS_TEAM_DOMAIN: 'https://acme.cloudflareaccess.com' },
      /ACCESS_TEAM_DOMAIN is set but ACCESS_AUD is not/,
    ],
    [{ ACCESS_AUD: AUD }, /ACCESS_AUD is set but ACCESS_TEAM_DOMAIN is not/],
    [{ ACCESS_TEAM_DOMAIN: 'acme.cloudflareaccess.com', ACCESS_AUD: AUD }, /is not a URL/],
    [{ ACCESS_TEAM_DOMAIN: 'https://acme.cloudflareaccess.com/cdn-cgi', ACCESS_AUD: AUD }, /without a path/],
    [
      { ACCESS_TEAM_DOMAIN: 'https://acme.cloudflareaccess.com?x=1', ACCESS_AUD: AUD },
      /without a path or query/,
    ],
  ])('is misconfigured for %j, saying the fix', (env, words) => {
    expect(accessConfig(env)).toMatchObject({ kind: 'misconfigured', message: expect.stringMatching(words) });
  });
});
