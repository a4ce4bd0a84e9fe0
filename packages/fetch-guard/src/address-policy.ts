import { isIP } from 'node:net';

// Which resolved addresses an outbound fetch may connect to (docs/spec/contracts.md §11). Written on byte
// arrays rather than strings so that every spelling of an address (`::ffff:127.0.0.1`,
// `::ffff:7f00:1`, `0:0:0:0:0:ffff:7f00:0001`) is classified the same way.

interface Range {
  bytes: number[];
  prefix: number;
  name: string;
}

function v4(cidr: string, name: string): Range {
  const [address = '', prefix = '32'] = cidr.split('/');
  return { bytes: address.split('.').map(Number), prefix: Number(prefix), name };
}

function v6(cidr: string, name: string): Range {
  const [address = '', prefix = '128'] = cidr.split('/');
  const bytes = parseIPv6(address);
  if (bytes === null) throw new Error(`bad range ${cidr}`);
  return { bytes, prefix: Number(prefix), name };
}

const BLOCKED_V4: Range[] = [
  v4('0.0.0.0/8', 'this network'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'carrier-grade NAT'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local (cloud metadata)'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'IETF protocol assignments'),
  v4('192.0.2.0/24', 'documentation'),
  v4('192.88.99.0/24', '6to4 relay anycast'),
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'benchmarking'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved / broadcast'),
];

const BLOCKED_V6: Range[] = [
  // Covers :: (unspecified), ::1 (loopback) and the deprecated IPv4-compatible ::a.b.c.d.
  v6('::/96', 'unspecified, loopback or IPv4-compatible'),
  v6('64:ff9b:1::/48', 'local-use IPv4/IPv6 translation'),
  v6('100::/64', 'discard-only'),
  v6('2001::/32', 'Teredo'),
  v6('2001:db8::/32', 'documentation'),
  v6('fc00::/7', 'unique local'),
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'site-local (deprecated)'),
  v6('ff00::/8', 'multicast'),
];

function inRange(bytes: number[], range: Range): boolean {
  let bits = range.prefix;
  for (let i = 0; bits > 0; i += 1, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((range.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

function parseIPv4(address: string): number[] | null {
  if (isIP(address) !== 4) return null;
  return address.split('.').map(Number);
}

/** The 16 bytes of an IPv6 address (any spelling, with or without a trailing dotted quad, no zone), or null. */
export function parseIPv6(input: string): number[] | null {
  const address = input.replace(/^\[|\]$/g, '');
  if (address.includes('%') || isIP(address) !== 6) return null;
  let tail: number[] = [];
  let head = address;
  const lastColon = address.lastIndexOf(':');
  const last = address.slice(lastColon + 1);
  if (last.includes('.')) {
    const quad = parseIPv4(last);
    if (quad === null) return null;
    tail = quad;
    // Two placeholder groups stand for the dotted quad; its bytes replace them below.
    head = `${address.slice(0, lastColon)}:0:0`;
  }
  const halves = head.split('::');
  const groupsOf = (part: string | undefined) =>
    part === undefined || part === '' ? [] : part.split(':').map((g) => parseInt(g, 16));
  const left = groupsOf(halves[0]);
  const right = groupsOf(halves[1]);
  const missing = 8 - left.length - right.length;
  const groups = halves.length === 2 ? [...left, ...new Array<number>(missing).fill(0), ...right] : left;
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  const bytes = groups.flatMap((g) => [g >> 8, g & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** The IPv4 address an IPv6 address carries (IPv4-mapped, NAT64 well-known prefix, 6to4), if any. */
function embeddedIPv4(bytes: number[]): number[] | null {
  const startsWith = (prefix: number[]) => prefix.every((b, i) => bytes[i] === b);
  // ::ffff:a.b.c.d
  if (startsWith([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff])) return bytes.slice(12);
  // 64:ff9b::a.b.c.d (NAT64)
  if (startsWith([0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return bytes.slice(12);
  // 2002:aabb:ccdd::/48 (6to4)
  if (startsWith([0x20, 0x02])) return bytes.slice(2, 6);
  return null;
}

/**
 * Why `address` (a literal IPv4 or IPv6 address) must not be fetched, or null when it is a
 * public unicast address. Anything that does not parse is refused.
 */
export function blockedReason(address: string): string | null {
  const four = parseIPv4(address);
  if (four !== null) return BLOCKED_V4.find((range) => inRange(four, range))?.name ?? null;
  const six = parseIPv6(address);
  if (six === null) return 'not an IP address';
  const inner = embeddedIPv4(six);
  if (inner !== null) {
    const innerReason = BLOCKED_V4.find((range) => inRange(inner, range))?.name;
    return innerReason === undefined ? null : `${innerReason} (embedded in IPv6)`;
  }
  return BLOCKED_V6.find((range) => inRange(six, range))?.name ?? null;
}

/** True when `address` is a public unicast address an outbound fetch may reach. */
export function isPublicAddress(address: string): boolean {
  return blockedReason(address) === null;
}
