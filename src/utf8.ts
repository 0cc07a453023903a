/**
 * Bytes as UTF-8 text, strictly: an ill-formed sequence is refused with the offset where it starts,
 * never replaced with U+FFFD (which would change a plan's text without a word). Used for request
 * bodies (http/middleware/json-body.ts) and the CLI's files (cli/inputs.ts).
 */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The text, or where it stops being UTF-8; a byte-order mark is dropped (as `Response.text()` does). */
export function decodeUtf8(bytes: Uint8Array): { ok: true; text: string } | { ok: false; position: number } {
  try {
    return { ok: true, text: strictUtf8.decode(bytes) };
  } catch {
    return { ok: false, position: firstInvalidUtf8(bytes) };
  }
}

/**
 * Where the first ill-formed sequence starts (Unicode's well-formed UTF-8 table: no overlong forms, no
 * surrogates, nothing past U+10FFFF), in one pass; called only once the decoder has refused the bytes.
 */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    const more =
      lead >= 0xc2 && lead <= 0xdf
        ? 1
        : lead >= 0xe0 && lead <= 0xef
          ? 2
          : lead >= 0xf0 && lead <= 0xf4
            ? 3
            : 0;
    if (more === 0) return i;
    // The second byte's range is narrower after E0, ED, F0 and F4; the others are 80..BF.
    const lo = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const hi = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    const second = bytes[i + 1];
    if (second === undefined || second < lo || second > hi) return i;
    for (let k = 2; k <= more; k++) {
      const next = bytes[i + k];
      if (next === undefined || (next & 0xc0) !== 0x80) return i;
    }
    i += more + 1;
  }
  return bytes.length;
}
