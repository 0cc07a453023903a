/**
 * Secret redaction for what planning stores (SPEC §3 provenance): rendered prompts and raw model
 * output may carry keys a user pasted into a goal or an input. Known secret values are replaced
 * exactly; common credential shapes are replaced by pattern.
 */

import { apiTokens } from '../api-tokens';
import { webhookSecrets } from '../approval/webhook-secrets';

/** What a redacted secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** Credential shapes, each replaced whole or (with a capture group) after its label. */
const PATTERNS: ReadonlyArray<RegExp> = [
  // "Bearer <token>", "Basic <b64>" in headers or prose.
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g,
  // OpenAI / Anthropic / Stripe-style keys, GitHub, Slack, AWS access keys, webhook secrets.
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{16,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bwhsec_[A-Za-z0-9+/=]{8,}/g,
  // JSON or prose "api_key": "…", password=…, token: …
  /((?:api[_-]?key|apikey|secret|password|passwd|access[_-]?token|auth[_-]?token|token|authorization)["']?\s*[:=]\s*["']?)[^\s"',}]{4,}/gi,
];

/**
 * Replaces every secret in `text`: each value in `secrets` (environment secrets such as
 * OPENAI_API_KEY; values under 4 characters are ignored, they would redact ordinary words) and
 * every credential-shaped string.
 * @example redactSecrets('curl -H "Authorization: Bearer abc123def456"', []) // 'curl -H "Authorization: [REDACTED]"'
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join(REDACTED);
  for (const re of PATTERNS) {
    out = out.replace(re, (match: string, label: unknown) =>
      typeof label === 'string' && /[:=]\s*["']?$/.test(label) ? `${label}${REDACTED}` : REDACTED,
    );
  }
  return out;
}

/**
 * The secret values of an environment worth redacting: its keys, tokens and secrets — and each of
 * the tokens `API_TOKEN` and the secrets `WEBHOOK_SECRET` holds while one is rotated (`old,new`:
 * either may turn up alone).
 */
export function secretsOf(env: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (typeof value === 'string' && /KEY|TOKEN|SECRET|PASSWORD/i.test(name) && value.trim() !== '') {
      out.push(value.trim());
      if (name === 'API_TOKEN') out.push(...apiTokens(value));
      if (name === 'WEBHOOK_SECRET') out.push(...webhookSecrets(value));
    }
  }
  // Longest first, so a whole value is redacted before a part of it.
  return [...new Set(out)].sort((a, b) => b.length - a.length);
}
