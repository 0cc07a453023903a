/** Strict UTF-8 decoding: text back, or the offset where the bytes stop being UTF-8. */
import { describe, expect, it } from 'vitest';
import { decodeUtf8 } from '../../src/utf8';

const bytes = (...b: number[]) => Uint8Array.from(b);
const positionOf = (b: Uint8Array) => {
  const d = decodeUtf8(b);
  return d.ok ? null : d.position;
};

describe('decodeUtf8', () => {
  it('decodes UTF-8, dropping a byte-order mark', () => {
    expect(decodeUtf8(new TextEncoder().encode('café ✓ 🚀'))).toEqual({ ok: true, text: 'café ✓ 🚀' });
    expect(decodeUtf8(bytes(0xef, 0xbb, 0xbf, 0x61))).toEqual({ ok: true, text: 'a' });
  });

  it('names where ill-formed bytes start', () => {
    expect(positionOf(bytes(0x61, 0xe9, 0x22))).toBe(1); // latin-1 "é" before a quote
    expect(positionOf(bytes(0x61, 0xe2, 0x82))).toBe(1); // "€" cut short at the end
    expect(positionOf(bytes(0xc0, 0xaf))).toBe(0); // an overlong "/"
    expect(positionOf(bytes(0x61, 0xed, 0xa0, 0x80))).toBe(1); // a surrogate
    expect(positionOf(bytes(0xf4, 0x90, 0x80, 0x80))).toBe(0); // past U+10FFFF
    expect(positionOf(bytes(0x61, 0x80))).toBe(1); // a continuation byte alone
  });

  it(
    'agrees with TextDecoder on 50,000 random byte strings, and its position ends a valid prefix',
    { timeout: 30_000 },
    () => {
      let seed = 42;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
      const valid = (b: Uint8Array) => {
        try {
          strict.decode(b);
          return true;
        } catch {
          return false;
        }
      };
      let disagreements = 0;
      for (let t = 0; t < 50_000; t++) {
        const b = Uint8Array.from({ length: 1 + Math.floor(random() * 8) }, () =>
          random() < 0.5 ? 0x80 + Math.floor(random() * 0x80) : Math.floor(random() * 256),
        );
        const position = positionOf(b);
        if (valid(b) !== (position === null)) disagreements++;
        else if (position !== null && !valid(b.subarray(0, position))) disagreements++;
      }
      expect(disagreements).toBe(0);
    },
  );
});
