import { describe, expect, it } from 'vitest';
import { checkHost, classifyHost, parseAllowlist } from '../../src/executor/tools/address-policy';
import { parseIPv4, parseIPv6 } from '../../src/executor/tools/ip-address';

const open = parseAllowlist('');
/** The hostname `fetch` would see for a URL, as the URL parser normalises it. */
const hostOf = (url: string) => new URL(url).hostname;

describe('IP literal parsing', () => {
  it('reads IPv4 in decimal, octal, hex and short forms the way the URL parser does', () => {
    const loopback = 0x7f000001;
    for (const s of [
      '127.0.0.1',
      '2130706433',
      '0x7f.1',
      '0177.0.0.1',
      '0x7f000001',
      '127.1',
      '127.0.1',
      '127.0.0.1.',
    ]) {
      expect(parseIPv4(s), s).toBe(loopback);
    }
  });

  it('rejects IPv4 parts that overflow or are not numbers', () => {
    for (const s of ['256.0.0.1', '1.2.3.4.5', '4294967296', '08.0.0.1', '1..2', 'a.b.c.d', '']) {
      expect(parseIPv4(s), s).toBeNull();
    }
  });

  it('reads IPv6 with compression, an IPv4 tail, brackets and a zone', () => {
    expect(parseIPv6('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('[::ffff:127.0.0.1]')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIPv6('fe80::1%eth0')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('rejects malformed IPv6', () => {
    for (const s of ['1::2::3', '1:2:3:4:5:6:7', '1:2:3:4:5:6:7:8:9', '12345::', '::ffff:300.0.0.1', ':::']) {
      expect(parseIPv6(s), s).toBeNull();
    }
  });
});

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['localhost', 'loopback'],
    ['LOCALHOST.', 'loopback'],
    ['api.localhost', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.1.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['metadata.google.internal', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['myhost', 'internal_name'],
    ['printer.local', 'internal_name'],
    ['nas.home.arpa', 'internal_name'],
    ['svc.internal', 'internal_name'],
  ])('classifies %s as %s', (host, category) => {
    expect(classifyHost(host).category).toBe(category);
  });

  it.each([
    '8.8.8.8',
    '172.32.0.1',
    '1.1.1.1',
    'example.com',
    '2606:4700:4700::1111',
    'localhost.example.com',
  ])('classifies %s as public', (host) => {
    expect(classifyHost(host).category).toBe('public');
  });

  it('sees through IPv4-mapped, compatible, NAT64 and 6to4 IPv6 spellings of private addresses', () => {
    expect(classifyHost('::ffff:127.0.0.1').category).toBe('loopback');
    expect(classifyHost('::ffff:7f00:1').category).toBe('loopback');
    expect(classifyHost('::ffff:a9fe:a9fe').category).toBe('metadata');
    expect(classifyHost('::10.0.0.1').category).toBe('private');
    expect(classifyHost('64:ff9b::192.168.0.1').category).toBe('private');
    expect(classifyHost('2002:7f00:1::').category).toBe('loopback');
    expect(classifyHost('::ffff:8.8.8.8').category).toBe('public');
  });

  it('treats a numeric-looking host that is not an address as invalid', () => {
    expect(classifyHost('example.123').category).toBe('invalid');
    expect(classifyHost('').category).toBe('invalid');
  });
});

describe('host check', () => {
  it.each([
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'http://017700000001/',
    'http://127.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::1]:8080/',
    'http://localhost:8787/',
    'http://0.0.0.0/',
    'http://169.254.169.254/latest/meta-data/',
    'http://0xa9fea9fe/',
    'http://[fd00:ec2::254]/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://10.0.0.1/',
    'http://192.168.0.10/',
  ])('refuses %s as address_refused when nothing is allowlisted', (url) => {
    const decision = checkHost(hostOf(url), open);
    expect(decision).toMatchObject({ allowed: false, code: 'address_refused' });
  });

  it('names the host, its address and the variable to set in the refusal', () => {
    expect(checkHost('0x7f.1', open)).toMatchObject({
      allowed: false,
      reason: '0x7f.1 (127.0.0.1) is a loopback address; add it to HTTP_ALLOWLIST to allow it',
    });
  });

  it('allows any public host when the allowlist is empty', () => {
    expect(checkHost('api.example.com', open).allowed).toBe(true);
    expect(checkHost('8.8.8.8', open).allowed).toBe(true);
  });

  it('allows only listed hosts and subdomains of wildcards when the allowlist is set', () => {
    const list = parseAllowlist(' api.example.com, *.trusted.org ');
    expect(checkHost('api.example.com', list).allowed).toBe(true);
    expect(checkHost('API.Example.com.', list).allowed).toBe(true);
    expect(checkHost('a.b.trusted.org', list).allowed).toBe(true);
    expect(checkHost('trusted.org', list)).toMatchObject({ allowed: false, code: 'host_not_allowed' });
    expect(checkHost('eviltrusted.org', list)).toMatchObject({ allowed: false, code: 'host_not_allowed' });
    expect(checkHost('example.com', list)).toMatchObject({ allowed: false, code: 'host_not_allowed' });
  });

  it('allows a private address only when it is explicitly allowlisted, in any spelling', () => {
    const list = parseAllowlist('127.0.0.1,localhost,*.internal.test,::1');
    expect(checkHost(hostOf('http://2130706433/'), list).allowed).toBe(true);
    expect(checkHost('0x7f.1', list).allowed).toBe(true);
    expect(checkHost('localhost', list).allowed).toBe(true);
    expect(checkHost('db.internal.test', list).allowed).toBe(true);
    expect(checkHost('[0:0:0:0:0:0:0:1]', list).allowed).toBe(true);
    expect(checkHost('127.0.0.2', list)).toMatchObject({ allowed: false, code: 'address_refused' });
    expect(checkHost('169.254.169.254', list)).toMatchObject({ allowed: false, code: 'address_refused' });
  });

  it.each([
    ['myhost', 'a single-label host name'],
    ['MyHost.', 'a single-label host name'],
    ['db', 'a single-label host name'],
    ['printer.local', 'a name in the internal zone .local'],
    ['local', 'a name in the internal zone .local'],
    ['nas.home.arpa', 'a name in the internal zone .home.arpa'],
    ['api.corp.internal', 'a name in the internal zone .internal'],
  ])('refuses the name %s as name_refused, saying it is %s', (host, what) => {
    const decision = checkHost(host, open);
    expect(decision).toMatchObject({ allowed: false, code: 'name_refused' });
    expect(decision.allowed || decision.reason).toContain(what);
    expect(decision.allowed || decision.reason).toContain('add it to HTTP_ALLOWLIST');
  });

  it('names the refused name and why a name is a risk', () => {
    expect(checkHost(hostOf('http://myhost:8080/x'), open)).toMatchObject({
      allowed: false,
      code: 'name_refused',
      reason:
        'myhost is a single-label host name, which may resolve to a private address (the Worker ' +
        'cannot resolve names to check); add it to HTTP_ALLOWLIST to allow it',
    });
  });

  it.each(['localhost', 'api.localhost', 'localhost.localdomain'])(
    'refuses the loopback name %s as address_refused',
    (host) => {
      expect(checkHost(host, open)).toMatchObject({ allowed: false, code: 'address_refused' });
    },
  );

  it('refuses internal names before asking a non-empty allowlist', () => {
    const list = parseAllowlist('api.example.com');
    expect(checkHost('myhost', list)).toMatchObject({ allowed: false, code: 'name_refused' });
    expect(checkHost('printer.local', list)).toMatchObject({ allowed: false, code: 'name_refused' });
  });

  it('allows internal names that are allowlisted, exactly or by a wildcard', () => {
    const list = parseAllowlist('myhost, *.local, nas.home.arpa, *.corp.internal, localhost');
    expect(checkHost('myhost', list).allowed).toBe(true);
    expect(checkHost('MYHOST.', list).allowed).toBe(true);
    expect(checkHost('printer.local', list).allowed).toBe(true);
    expect(checkHost('nas.home.arpa', list).allowed).toBe(true);
    expect(checkHost('api.corp.internal', list).allowed).toBe(true);
    expect(checkHost('localhost', list).allowed).toBe(true);
    expect(checkHost('otherhost', list)).toMatchObject({ allowed: false, code: 'name_refused' });
    expect(checkHost('other.home.arpa', list)).toMatchObject({ allowed: false, code: 'name_refused' });
    expect(checkHost('corp.internal', list)).toMatchObject({ allowed: false, code: 'name_refused' });
  });

  it.each(['mylocal.com', 'local.example.com', 'internal.example.org', 'home.arpa.example.net', 'xlocal.io'])(
    'allows %s: it only looks like an internal zone',
    (host) => {
      expect(checkHost(host, open).allowed).toBe(true);
    },
  );

  it('names an entry written with a port or scheme, which matches no host, in the refusal', () => {
    const list = parseAllowlist('127.0.0.1:9866, http://10.0.0.5/, api.example.com');
    expect(list.unusable).toEqual(['127.0.0.1:9866', 'http://10.0.0.5/']);
    const refused = checkHost('127.0.0.1', list);
    expect(refused).toMatchObject({ allowed: false, code: 'address_refused' });
    expect(!refused.allowed && refused.reason).toBe(
      '127.0.0.1 is a loopback address; add it to HTTP_ALLOWLIST to allow it (HTTP_ALLOWLIST\'s "127.0.0.1:9866", "http://10.0.0.5/" name no host and match nothing: write each host alone, without a scheme, port or path — 127.0.0.1, not http://127.0.0.1:8080)',
    );
    expect(checkHost('api.example.com', list).allowed).toBe(true);
    // A list of only such entries still restricts: it was meant to.
    expect(checkHost('example.com', parseAllowlist('localhost:8080'))).toMatchObject({
      allowed: false,
      code: 'host_not_allowed',
    });
    // Bare and bracketed IPv6 addresses are hosts.
    for (const v6 of ['::1', '[::1]', 'fd00::5']) expect(parseAllowlist(v6).unusable, v6).toBeUndefined();
    expect(checkHost('[::1]', parseAllowlist('[::1]')).allowed).toBe(true);
  });

  it('does not let a bare * allowlist private addresses', () => {
    const list = parseAllowlist('*');
    expect(checkHost('example.com', list).allowed).toBe(true);
    expect(checkHost('127.0.0.1', list)).toMatchObject({ allowed: false, code: 'address_refused' });
  });
});
