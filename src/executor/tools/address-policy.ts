/**
 * Which hosts `http.request` may reach (SPEC §4): loopback, private, link-local, metadata and other
 * non-public addresses are refused in every spelling the URL parser accepts, unless the host is
 * explicitly on the `HTTP_ALLOWLIST`. Pure — no DNS (Workers' fetch has no DNS API): a name is judged
 * by its name, so names that only a local resolver answers — single-label names (`/etc/hosts`
 * aliases, search domains) and `.local`, `.internal`, `.home.arpa` — are refused too.
 */
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from './ip-address';

/** What kind of destination a host is. Everything but `public` is refused unless allowlisted. */
export type HostCategory =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'metadata'
  | 'unspecified'
  | 'reserved'
  | 'internal_name'
  | 'invalid';

/** A host as the policy sees it. */
export type HostInfo = {
  /** The host as given, lower-cased, without brackets or a trailing dot. */
  host: string;
  kind: 'ipv4' | 'ipv6' | 'name' | 'invalid';
  /** Canonical address for IP literals (`127.0.0.1`, `0:0:0:0:0:0:0:1`). */
  address?: string;
  category: HostCategory;
};

const METADATA_IPV4 = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200']);
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);
const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);
/** Zones only local resolvers answer: mDNS (RFC 6762), home networks (RFC 8375), ICANN's private-use TLD. */
const INTERNAL_ZONES = ['local', 'home.arpa', 'internal'];

/** [network, prefix length, category], first match wins; anything unmatched is public. */
const IPV4_RANGES: ReadonlyArray<readonly [string, number, HostCategory]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'private'], // carrier-grade NAT
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'reserved'], // multicast
  ['240.0.0.0', 4, 'reserved'], // incl. 255.255.255.255
];

/**
 * Classifies a URL hostname.
 * @example classifyHost('0x7f.1').category // 'loopback'
 * @example classifyHost('[::ffff:a9fe:a9fe]').category // 'metadata'
 */
export function classifyHost(hostname: string): HostInfo {
  const host = normaliseHost(hostname);
  if (host === '') return { host, kind: 'invalid', category: 'invalid' };
  if (host.includes(':')) {
    const groups = parseIPv6(host);
    if (!groups) return { host, kind: 'invalid', category: 'invalid' };
    return { host, kind: 'ipv6', address: formatIPv6(groups), category: classifyIPv6(groups) };
  }
  // The URL parser reads any host whose last label is numeric as IPv4 (or rejects it).
  if (/^(0x[0-9a-f]*|\d+)$/i.test(host.split('.').at(-1) ?? '')) {
    const v4 = parseIPv4(host);
    if (v4 === null) return { host, kind: 'invalid', category: 'invalid' };
    return { host, kind: 'ipv4', address: formatIPv4(v4), category: classifyIPv4(v4) };
  }
  return { host, kind: 'name', category: classifyName(host) };
}

function normaliseHost(hostname: string): string {
  let h = hostname.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

function classifyName(name: string): HostCategory {
  if (LOOPBACK_NAMES.has(name) || name.endsWith('.localhost')) return 'loopback';
  if (METADATA_NAMES.has(name)) return 'metadata';
  if (!name.includes('.') || internalZone(name)) return 'internal_name';
  return 'public';
}

/** The internal zone `name` is in or is (`local`, `home.arpa`, `internal`), if any. */
function internalZone(name: string): string | undefined {
  return INTERNAL_ZONES.find((zone) => name === zone || name.endsWith(`.${zone}`));
}

/** Category of a 32-bit IPv4 address; cloud metadata addresses first. */
export function classifyIPv4(value: number): HostCategory {
  if (METADATA_IPV4.has(formatIPv4(value))) return 'metadata';
  for (const [network, prefix, category] of IPV4_RANGES) {
    const shift = 32 - prefix;
    if (value >>> shift === parseIPv4(network)! >>> shift) return category;
  }
  return 'public';
}

/** Category of an IPv6 address; addresses embedding an IPv4 one (mapped, NAT64, 6to4) take its category. */
export function classifyIPv6(g: readonly number[]): HostCategory {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embedded = (hi: number, lo: number) => classifyIPv4(((hi << 16) | lo) >>> 0);
  const upperZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0;
  if (upperZero && g4 === 0 && g5 === 0) {
    if (g6 === 0 && g7 === 0) return 'unspecified';
    if (g6 === 0 && g7 === 1) return 'loopback';
    return embedded(g6, g7); // IPv4-compatible ::a.b.c.d
  }
  if (upperZero && g4 === 0 && g5 === 0xffff) return embedded(g6, g7); // IPv4-mapped
  if (upperZero && g4 === 0xffff && g5 === 0) return embedded(g6, g7); // IPv4-translated
  if (g0 === 0x64 && g1 === 0xff9b) return embedded(g6, g7); // NAT64 (well-known and local-use)
  if (g0 === 0x2002) return embedded(g1, g2); // 6to4
  if (
    g0 === 0xfd00 &&
    g1 === 0x0ec2 &&
    g2 === 0 &&
    g3 === 0 &&
    g4 === 0 &&
    g5 === 0 &&
    g6 === 0 &&
    g7 === 0x254
  )
    return 'metadata';
  if ((g0 & 0xfe00) === 0xfc00) return 'private'; // unique local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return 'link_local';
  if ((g0 & 0xffc0) === 0xfec0) return 'private'; // deprecated site-local
  if ((g0 & 0xff00) === 0xff00) return 'reserved'; // multicast
  if (g0 === 0x2001 && (g1 === 0 || g1 === 0x0db8)) return 'reserved'; // Teredo, documentation
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return 'reserved'; // discard
  return 'public';
}

const CATEGORY_LABELS: Record<Exclude<HostCategory, 'public'>, string> = {
  loopback: 'a loopback address',
  private: 'a private-network address',
  link_local: 'a link-local address',
  metadata: 'a cloud metadata address',
  unspecified: 'the unspecified address',
  reserved: 'a reserved, non-routable address',
  internal_name: 'an internal host name',
  invalid: 'not a valid host',
};

/** What a refused host is, for the message; names say what kind of name and why it matters. */
function refusalLabel(host: string, category: Exclude<HostCategory, 'public'>): string {
  if (category !== 'internal_name') return CATEGORY_LABELS[category];
  const zone = internalZone(host);
  const what = zone ? `a name in the internal zone .${zone}` : 'a single-label host name';
  return `${what}, which may resolve to a private address (the Worker cannot resolve names to check)`;
}

/** A parsed `HTTP_ALLOWLIST`. */
export type Allowlist = {
  /** Exact hosts (names or canonical IP addresses). */
  exact: ReadonlySet<string>;
  /** Suffixes from `*.example.com` entries, stored as `.example.com`. */
  suffixes: readonly string[];
  /**
   * Entries written with a scheme, a port or a path (`http://10.0.0.5`, `127.0.0.1:9866`): they name
   * no host and match nothing — a refusal says so, rather than "add it" to a list that has it.
   */
  unusable?: readonly string[];
};

/**
 * Parses the comma-separated `HTTP_ALLOWLIST`. Entries are hostnames, IP literals or `*.domain`
 * wildcards (which match subdomains, not the apex). `*` alone adds nothing: an empty list already
 * allows every public host, and private addresses need an explicit entry.
 */
export function parseAllowlist(raw: string | undefined): Allowlist {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  const unusable: string[] = [];
  for (const entry of (raw ?? '').split(',')) {
    const e = entry.trim().toLowerCase();
    if (e === '' || e === '*') continue;
    if (notAHost(e)) unusable.push(entry.trim());
    else if (e.startsWith('*.')) suffixes.push(normaliseHost(e.slice(1)));
    else exact.add(hostKey(classifyHost(e)));
  }
  return unusable.length > 0 ? { exact, suffixes, unusable } : { exact, suffixes };
}

/**
 * An entry with a scheme, path or port: `http://…`, `host/…`, `host:80`, `[::1]:80`. A bare IPv6
 * address (`::1`, `[::1]`) has colons and is a host.
 */
function notAHost(e: string): boolean {
  if (/[/@?#]/.test(e)) return true;
  if (e.startsWith('[')) return !e.endsWith(']');
  return (e.match(/:/g) ?? []).length === 1;
}

/** What a refusal adds when the allowlist has entries that match nothing, naming them. */
function unusableNote(allowlist: Allowlist): string {
  const bad = allowlist.unusable ?? [];
  if (bad.length === 0) return '';
  const named = bad.map((b) => JSON.stringify(b)).join(', ');
  return ` (HTTP_ALLOWLIST's ${named} ${bad.length === 1 ? 'names' : 'name'} no host and match${bad.length === 1 ? 'es' : ''} nothing: write each host alone, without a scheme, port or path — 127.0.0.1, not http://127.0.0.1:8080)`;
}

function hostKey(info: HostInfo): string {
  return info.address ?? info.host;
}

/** Whether `HTTP_ALLOWLIST` names this host, exactly (any spelling of an IP) or by a wildcard. */
export function isAllowlisted(info: HostInfo, allowlist: Allowlist): boolean {
  if (allowlist.exact.has(hostKey(info))) return true;
  return info.kind === 'name' && allowlist.suffixes.some((s) => info.host.endsWith(s));
}

function isEmpty(allowlist: Allowlist): boolean {
  // An entry that matches nothing still says the list is meant to restrict.
  return allowlist.exact.size === 0 && allowlist.suffixes.length === 0 && !allowlist.unusable?.length;
}

export type HostDecision =
  | { allowed: true; info: HostInfo }
  | {
      allowed: false;
      code: 'host_not_allowed' | 'address_refused' | 'name_refused';
      reason: string;
      info: HostInfo;
    };

/**
 * Decides whether a request may go to `hostname`. An allowlisted host always may; otherwise a
 * non-public address is `address_refused`, a single-label or internal-zone name `name_refused`, and
 * with a non-empty allowlist any other host is `host_not_allowed`.
 * @example checkHost('127.0.0.1', parseAllowlist('')) // { allowed: false, code: 'address_refused', … }
 * @example checkHost('printer.local', parseAllowlist('')) // { allowed: false, code: 'name_refused', … }
 */
export function checkHost(hostname: string, allowlist: Allowlist): HostDecision {
  const info = classifyHost(hostname);
  if (isAllowlisted(info, allowlist)) return { allowed: true, info };
  const { category } = info;
  if (category !== 'public') {
    const what = info.address && info.address !== info.host ? `${info.host} (${info.address})` : info.host;
    const reason = `${what} is ${refusalLabel(info.host, category)}; add it to HTTP_ALLOWLIST to allow it${unusableNote(allowlist)}`;
    const code = category === 'internal_name' ? 'name_refused' : 'address_refused';
    return { allowed: false, code, reason, info };
  }
  if (!isEmpty(allowlist)) {
    return {
      allowed: false,
      code: 'host_not_allowed',
      reason: `${info.host} is not in HTTP_ALLOWLIST${unusableNote(allowlist)}`,
      info,
    };
  }
  return { allowed: true, info };
}
