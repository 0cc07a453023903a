/**
 * Checks a Cloudflare Access application token (the `Cf-Access-Jwt-Assertion` header) as Cloudflare's
 * "Validate JWTs" page says: RS256 signed by a key the team's certs URL publishes, `aud` holding the
 * application's tag, `iss` the team domain, not expired. The identity is the `email` claim, or for a
 * service token (no email) its `common_name`.
 *
 * jose keeps each key set in memory (per isolate, since the app is built once per isolate) and
 * fetches it again after ten minutes, or at once when a token names a key it does not hold (a
 * rotation) — at most once per `cooldownMs`, so tokens with made-up key ids cannot make the Worker
 * fetch the certs on every request.
 */
import { createRemoteJWKSet, errors, jwtVerify } from 'jose';

/** Which check a token failed: stable, sent as `details.check`. */
export const AccessCheck = {
  malformed: 'malformed',
  algorithm: 'algorithm',
  unknown_key: 'unknown_key',
  signature: 'signature',
  audience: 'audience',
  issuer: 'issuer',
  expired: 'expired',
  not_yet_valid: 'not_yet_valid',
  identity: 'identity',
} as const;
export type AccessCheck = (typeof AccessCheck)[keyof typeof AccessCheck];

/** The caller a valid token names, or which check it failed, or that the keys could not be read. */
export type AccessVerdict =
  | { ok: true; identity: string; kind: 'user' | 'service_token' }
  | { ok: false; check: AccessCheck; message: string }
  | { ok: false; check: 'keys_unavailable'; message: string };

export type AccessVerifierOptions = {
  /** Least time between two fetches of a team's keys when a token names an unknown key (jose's default). */
  cooldownMs?: number;
};

export type AccessVerifier = (
  token: string,
  expected: { issuer: string; audience: string; certsUrl: string },
) => Promise<AccessVerdict>;

/**
 * A verifier holding one key set per certs URL.
 * @example
 * const verify = accessVerifier();
 * const v = await verify(jwt, { issuer, audience, certsUrl });
 * if (v.ok) console.log(v.identity); // 'ada@example.com'
 */
export function accessVerifier({ cooldownMs = 30_000 }: AccessVerifierOptions = {}): AccessVerifier {
  const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
  const keysAt = (certsUrl: string) => {
    let keys = keySets.get(certsUrl);
    if (!keys) {
      keys = createRemoteJWKSet(new URL(certsUrl), { cooldownDuration: cooldownMs });
      keySets.set(certsUrl, keys);
    }
    return keys;
  };
  return async function verifyAccessJwt(token, { issuer, audience, certsUrl }) {
    try {
      const { payload } = await jwtVerify(token, keysAt(certsUrl), {
        algorithms: ['RS256'],
        audience,
        issuer,
        requiredClaims: ['exp'],
      });
      const email = typeof payload.email === 'string' ? payload.email.trim() : '';
      if (email) return { ok: true, identity: email, kind: 'user' };
      const name = typeof payload.common_name === 'string' ? payload.common_name.trim() : '';
      if (name) return { ok: true, identity: name, kind: 'service_token' };
      return {
        ok: false,
        check: AccessCheck.identity,
        message: 'it names no one: it has neither an `email` claim nor a service token’s `common_name`',
      };
    } catch (err) {
      return refusal(err, { issuer, audience, certsUrl });
    }
  };
}

/** What `err` from jose says about the token, in words that name the check and never quote the token. */
function refusal(
  err: unknown,
  { issuer, audience, certsUrl }: { issuer: string; audience: string; certsUrl: string },
): AccessVerdict & { ok: false } {
  const no = (check: AccessCheck, message: string) => ({ ok: false as const, check, message });
  if (err instanceof errors.JWTExpired) return no(AccessCheck.expired, 'it has expired (`exp` is past)');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'aud')
      return no(
        AccessCheck.audience,
        `its \`aud\` does not hold this application’s tag (ACCESS_AUD ${audience})`,
      );
    if (err.claim === 'iss')
      return no(AccessCheck.issuer, `its \`iss\` is not this team domain (ACCESS_TEAM_DOMAIN ${issuer})`);
    if (err.claim === 'nbf' || err.claim === 'iat')
      return no(AccessCheck.not_yet_valid, `it is not valid yet (\`${err.claim}\` is in the future)`);
    return no(AccessCheck.malformed, `its \`${err.claim}\` claim is missing or not what a token carries`);
  }
  if (err instanceof errors.JOSEAlgNotAllowed)
    return no(AccessCheck.algorithm, 'it is not signed with RS256 (the only algorithm Access uses)');
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys)
    return no(AccessCheck.unknown_key, `its key id names no key published at ${certsUrl}`);
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return no(AccessCheck.signature, `its signature does not verify with the key published at ${certsUrl}`);
  if (
    err instanceof errors.JWSInvalid ||
    err instanceof errors.JWTInvalid ||
    err instanceof errors.JOSENotSupported
  )
    return no(
      AccessCheck.malformed,
      'it is not a signed JWT (three base64url parts: header, claims, signature)',
    );
  // The key set itself: a timeout, a non-200, not a JWKS, or the network.
  const why = err instanceof Error ? err.message : String(err);
  return {
    ok: false,
    check: 'keys_unavailable',
    message: `Access’s signing keys could not be read from ${certsUrl} (${why}); try again shortly`,
  };
}
