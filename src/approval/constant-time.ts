/**
 * Comparison of secrets-derived strings in time that depends only on their length, so a caller
 * probing with guesses learns nothing from how long a refusal takes.
 */

const encoder = new TextEncoder();

/**
 * True when `a` and `b` are the same string. Runs over every byte whatever the first difference; a
 * length mismatch returns early, which is safe for the fixed-length digests and signatures compared
 * here (their length is public).
 * @example
 * constantTimeEqual(expectedHex, presentedHex); // true or false, in the same time either way
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  if (x.length !== y.length) return false;
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= (x[i] as number) ^ (y[i] as number);
  return diff === 0;
}
