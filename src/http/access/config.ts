/**
 * Cloudflare Access in front of the Worker (SPEC §8): `ACCESS_TEAM_DOMAIN` and `ACCESS_AUD` read into
 * what the auth middleware checks a `Cf-Access-Jwt-Assertion` against. Off unless both are set; one
 * without the other, or a team domain that is not https, is a misconfiguration the operator is told
 * about on every request (failing closed: a typo must not leave the JWT unchecked).
 */

/** Access is off, on (with what a token must match), or misconfigured (with the fix). */
export type AccessConfig =
  | { kind: 'off' }
  | {
      kind: 'on';
      /** The team domain as an origin, e.g. `https://acme.cloudflareaccess.com`: a token's `iss`. */
      issuer: string;
      /** The Access application's audience tag: a token's `aud` must hold it. */
      audience: string;
      /** Where Access publishes its signing keys: `<team domain>/cdn-cgi/access/certs`. */
      certsUrl: string;
    }
  | { kind: 'misconfigured'; message: string };

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The Access settings `env` holds.
 * @example accessConfig({ ACCESS_TEAM_DOMAIN: 'https://acme.cloudflareaccess.com', ACCESS_AUD: 'abc' })
 * // { kind: 'on', issuer: 'https://acme.cloudflareaccess.com', audience: 'abc', certsUrl: '…/cdn-cgi/access/certs' }
 */
export function accessConfig(env: { ACCESS_TEAM_DOMAIN?: string; ACCESS_AUD?: string }): AccessConfig {
  const domain = env.ACCESS_TEAM_DOMAIN?.trim() ?? '';
  const audience = env.ACCESS_AUD?.trim() ?? '';
  if (!domain && !audience) return { kind: 'off' };
  if (!domain || !audience) {
    const [set, unset] = domain ? ['ACCESS_TEAM_DOMAIN', 'ACCESS_AUD'] : ['ACCESS_AUD', 'ACCESS_TEAM_DOMAIN'];
    return {
      kind: 'misconfigured',
      message:
        `Cloudflare Access is half configured: ${set} is set but ${unset} is not. Set both — ` +
        'ACCESS_TEAM_DOMAIN to your team domain (https://<team>.cloudflareaccess.com) and ACCESS_AUD to ' +
        'the Access application’s Application Audience (AUD) tag — or neither to turn Access off.',
    };
  }
  const issuer = teamOrigin(domain);
  if (typeof issuer !== 'string') return { kind: 'misconfigured', message: issuer.message };
  return { kind: 'on', issuer, audience, certsUrl: `${issuer}/cdn-cgi/access/certs` };
}

/** The team domain as an origin, or why it cannot be one. */
function teamOrigin(domain: string): string | { message: string } {
  const fix = 'set it to your team domain, e.g. https://acme.cloudflareaccess.com';
  let url: URL;
  try {
    url = new URL(domain);
  } catch {
    return { message: `ACCESS_TEAM_DOMAIN "${domain}" is not a URL: ${fix}` };
  }
  // Plain http lets anyone on the path swap the signing keys; loopback only serves local tests.
  const local = url.protocol === 'http:' && LOOPBACK.has(url.hostname);
  if (url.protocol !== 'https:' && !local)
    return { message: `ACCESS_TEAM_DOMAIN must be an https URL (got ${url.protocol}//${url.host}): ${fix}` };
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username)
    return { message: `ACCESS_TEAM_DOMAIN must be the domain alone, without a path or query: ${fix}` };
  return url.origin;
}
