/**
 * The fingerprint of the request that created a run with an `Idempotency-Key` (http/idempotency-key.ts),
 * kept in the run's meta rows: a later request with the key is the same request — answered with the
 * run — only when its fingerprint is this one. Read back through zod like every stored row.
 */
import { z } from 'zod';
import type { SqlStore } from './sql-store';

const KEY = 'request_fingerprint';

/** A SHA-256 digest in hex, as http/idempotency-key.ts makes it. */
const FingerprintSchema = z.string().regex(/^[0-9a-f]{64}$/);

export function writeFingerprint(store: SqlStore, fingerprint: string): void {
  store.setMeta(KEY, fingerprint);
}

/** The stored fingerprint; null for a run created without a key, or a row that is not one. */
export function readFingerprint(store: SqlStore): string | null {
  const parsed = FingerprintSchema.safeParse(store.getMeta(KEY));
  return parsed.success ? parsed.data : null;
}
