/**
 * The `WEBHOOK_SECRET` secret as a list, so it can be rotated without a refused webhook: every listed
 * secret signs each approval webhook (src/approval/webhook.ts), and a receiver holding any one of them
 * accepts it. Set the new secret beside the old (`old,new`), move the receivers, remove the old.
 */

/**
 * The secrets a `WEBHOOK_SECRET` value holds, in order, each once: separated by commas or white space
 * (line breaks, spaces), which a `whsec_<base64>` secret never contains. [] when unset or when it
 * holds only separators.
 * @example webhookSecrets('whsec_b2xk, whsec_bmV3\n'); // ['whsec_b2xk', 'whsec_bmV3']
 */
export function webhookSecrets(value: string | undefined): string[] {
  if (!value) return [];
  return [...new Set(value.split(/[,\s]+/).filter((s) => s !== ''))];
}
