/**
 * Reading an HTTP response body within a byte limit, and turning it into step output: parsed JSON for
 * JSON media types, text for textual ones, base64 for the rest.
 */

/** The first `maxBytes` of a body; `truncated` when there was more. */
export type LimitedBody = { bytes: Uint8Array; truncated: boolean };

/**
 * Streams `body`, stopping (and cancelling the rest) as soon as `maxBytes` would be exceeded, so a
 * huge response never sits in memory. Rejects with the signal's reason when it aborts mid-read.
 * @example const { bytes, truncated } = await readLimited(res.body, 1 << 20, signal);
 */
export async function readLimited(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<LimitedBody> {
  if (!body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = body.getReader();
  // A pending read does not notice an abort on its own when the stream did not come from fetch.
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const { done, value } = await reader.read();
      if (signal?.aborted) throw signal.reason;
      if (done) break;
      if (size + value.byteLength > maxBytes) {
        chunks.push(value.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (truncated) void reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  return { bytes: concat(chunks, size), truncated };
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

/** A decoded body, with `encoding: 'base64'` when it was binary. */
export type DecodedBody = { body: unknown; encoding?: 'base64' };

/**
 * Decodes a body by its `content-type`. JSON that is truncated or malformed comes back as text
 * rather than failing the step — the caller still sees what the server said.
 */
export function decodeBody(bytes: Uint8Array, contentType: string | null, truncated: boolean): DecodedBody {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!isTextual(type, contentType)) return { body: toBase64(bytes), encoding: 'base64' };
  // stream: true drops a multi-byte character cut in half by truncation instead of mangling it.
  const text = new TextDecoder().decode(bytes, { stream: truncated });
  if (isJson(type) && !truncated && text.trim() !== '') {
    try {
      return { body: JSON.parse(text) as unknown };
    } catch {
      return { body: text };
    }
  }
  return { body: text };
}

function isJson(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json') || type === 'text/json';
}

function isTextual(type: string, raw: string | null): boolean {
  if (type === '' || raw?.toLowerCase().includes('charset=')) return true;
  if (type.startsWith('text/') || isJson(type) || type.endsWith('+xml')) return true;
  return [
    'application/xml',
    'application/javascript',
    'application/ecmascript',
    'application/x-www-form-urlencoded',
    'application/x-ndjson',
    'application/yaml',
    'application/graphql',
  ].includes(type);
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  const step = 0x8000; // stay under the argument-count limit of fromCharCode
  for (let i = 0; i < bytes.length; i += step) {
    binary += String.fromCharCode(...bytes.subarray(i, i + step));
  }
  return btoa(binary);
}
