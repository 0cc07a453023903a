/**
 * IP literal parsing the way the WHATWG URL parser (and so `fetch`) reads a host: IPv4 in decimal,
 * octal and hex parts with 1–4 components (`2130706433`, `0x7f.1`, `0177.0.0.1`), IPv6 with `::`
 * compression, an embedded dotted IPv4 tail and an optional zone. Pure.
 */

/**
 * Parses an IPv4 host in any form the URL parser accepts; `null` when it is not one.
 * @example parseIPv4('0x7f.1') // 2130706433 (127.0.0.1)
 */
export function parseIPv4(host: string): number | null {
  const parts = host.split('.');
  if (parts.length > 1 && parts.at(-1) === '') parts.pop(); // one trailing dot is allowed
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    const n = parseIPv4Part(part);
    if (n === null) return null;
    numbers.push(n);
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255)) return null;
  // The last part fills every byte the earlier parts left: `127.1` is 127.0.0.1.
  if (last >= 256 ** (4 - numbers.length)) return null;
  let value = last;
  numbers.forEach((n, i) => (value += n * 256 ** (3 - i)));
  return value;
}

function parseIPv4Part(part: string): number | null {
  if (part === '') return null;
  let digits = part;
  let radix = 10;
  if (/^0x/i.test(part)) {
    digits = part.slice(2);
    radix = 16;
  } else if (part.length > 1 && part.startsWith('0')) {
    digits = part.slice(1);
    radix = 8;
  }
  if (digits === '') return 0; // `0x` alone is zero
  const valid = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!valid.test(digits)) return null;
  const n = parseInt(digits, radix);
  return Number.isSafeInteger(n) ? n : null;
}

/** Dotted-quad form of a 32-bit address. */
export function formatIPv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join('.');
}

/**
 * Parses an IPv6 literal (brackets and `%zone` allowed) into its eight 16-bit groups; `null` when it
 * is not one.
 * @example parseIPv6('[::ffff:127.0.0.1]') // [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]
 */
export function parseIPv6(host: string): number[] | null {
  let s = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const zone = s.indexOf('%');
  if (zone !== -1) s = s.slice(0, zone);
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const head = parseGroups(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? parseGroups(halves[1]!, true) : [];
  if (head === null || tail === null) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  return [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
}

/** Groups of one side of `::`; a dotted IPv4 is allowed as the last piece when `mayEndInIPv4`. */
function parseGroups(side: string, mayEndInIPv4: boolean): number[] | null {
  if (side === '') return [];
  const pieces = side.split(':');
  const groups: number[] = [];
  for (const [i, piece] of pieces.entries()) {
    if (mayEndInIPv4 && i === pieces.length - 1 && piece.includes('.')) {
      if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(piece)) return null;
      const octets = piece.split('.').map(Number);
      if (octets.some((o) => o > 255)) return null;
      const [a, b, c, d] = octets as [number, number, number, number];
      groups.push((a << 8) | b, (c << 8) | d);
    } else {
      if (!/^[0-9a-f]{1,4}$/i.test(piece)) return null;
      groups.push(parseInt(piece, 16));
    }
  }
  return groups;
}

/** Full, uncompressed lower-case form — one spelling per address, for comparisons. */
export function formatIPv6(groups: readonly number[]): string {
  return groups.map((g) => g.toString(16)).join(':');
}
