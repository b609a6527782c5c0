import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * What an IP address is, for the outbound guard (outbound-http.ts): the server may be made to
 * connect to `public` addresses; `private` ones only on premises (LEARNBASE_OUTBOUND_ALLOW_PRIVATE),
 * `loopback` only in tests; everything else never. Pure: no DNS here, the guard resolves first
 * and asks about each answer.
 *
 * An IPv6 address that carries an IPv4 one (IPv4-mapped `::ffff:127.0.0.1`, IPv4-compatible
 * `::127.0.0.1`, NAT64 `64:ff9b::7f00:1`, 6to4 `2002:7f00:1::`, Teredo's client) is what that IPv4
 * address is: each of those reaches, or may be made to reach, the IPv4 host it names.
 */
export type AddressKind =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link-local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved';

/** The ranges of each kind but `public`, most specific first (a metadata address sits inside link-local and private ranges). */
const RANGES: ReadonlyArray<[Exclude<AddressKind, 'public'>, 'ipv4' | 'ipv6', string, number]> = [
  // The clouds' instance metadata services: AWS, GCP, Azure, OpenStack, Oracle (IPv4 and AWS's IPv6), Alibaba.
  ['metadata', 'ipv4', '169.254.169.254', 32],
  ['metadata', 'ipv4', '169.254.170.2', 32],
  ['metadata', 'ipv4', '100.100.100.200', 32],
  ['metadata', 'ipv6', 'fd00:ec2::254', 128],
  ['broadcast', 'ipv4', '255.255.255.255', 32],
  ['unspecified', 'ipv4', '0.0.0.0', 8],
  ['loopback', 'ipv4', '127.0.0.0', 8],
  ['link-local', 'ipv4', '169.254.0.0', 16],
  ['private', 'ipv4', '10.0.0.0', 8],
  ['private', 'ipv4', '172.16.0.0', 12],
  ['private', 'ipv4', '192.168.0.0', 16],
  // Carrier-grade NAT (RFC 6598): the provider's side of the network, not the internet.
  ['private', 'ipv4', '100.64.0.0', 10],
  // Benchmarking (RFC 2544), used inside labs and some private networks.
  ['private', 'ipv4', '198.18.0.0', 15],
  // IETF protocol assignments, documentation, reserved for future use: no public host answers there.
  ['reserved', 'ipv4', '192.0.0.0', 24],
  ['reserved', 'ipv4', '192.0.2.0', 24],
  ['reserved', 'ipv4', '198.51.100.0', 24],
  ['reserved', 'ipv4', '203.0.113.0', 24],
  ['multicast', 'ipv4', '224.0.0.0', 4],
  ['reserved', 'ipv4', '240.0.0.0', 4],
  ['unspecified', 'ipv6', '::', 128],
  ['loopback', 'ipv6', '::1', 128],
  ['link-local', 'ipv6', 'fe80::', 10],
  // Unique-local (RFC 4193) and the deprecated site-local: a private network's addresses.
  ['private', 'ipv6', 'fc00::', 7],
  ['private', 'ipv6', 'fec0::', 10],
  // Local-use NAT64 (RFC 8215): translates to whatever the local network's NAT64 is set up for.
  ['private', 'ipv6', '64:ff9b:1::', 48],
  ['multicast', 'ipv6', 'ff00::', 8],
  ['reserved', 'ipv6', '100::', 64],
  ['reserved', 'ipv6', '2001:db8::', 32],
];

/** One BlockList per kind, in the order RANGES names them first. */
const LISTS: ReadonlyArray<[Exclude<AddressKind, 'public'>, BlockList]> = (() => {
  const lists = new Map<Exclude<AddressKind, 'public'>, BlockList>();
  for (const [kind, family, network, prefix] of RANGES) {
    const list = lists.get(kind) ?? new BlockList();
    list.addSubnet(network, prefix, family);
    lists.set(kind, list);
  }
  return [...lists];
})();

/** The kinds in the order they are asked: the most specific (metadata, broadcast) before the ranges holding them. */
const ORDER: ReadonlyArray<Exclude<AddressKind, 'public'>> = [
  'metadata',
  'broadcast',
  'unspecified',
  'loopback',
  'link-local',
  'multicast',
  'reserved',
  'private',
];
const LIST_OF = new Map(LISTS);

/** What `address` (an IPv4 or IPv6 literal, without brackets; an IPv6 zone is ignored) is; undefined when it is no IP address. */
export function addressKind(address: string): AddressKind | undefined {
  const text = address.replace(/%.*$/, '');
  if (isIPv4(text)) return kindIn(text, 'ipv4');
  if (!isIPv6(text)) return undefined;
  const embedded = embeddedIPv4(text);
  return embedded === undefined ? kindIn(text, 'ipv6') : kindIn(embedded, 'ipv4');
}

function kindIn(address: string, family: 'ipv4' | 'ipv6'): AddressKind {
  for (const kind of ORDER) if (LIST_OF.get(kind)!.check(address, family)) return kind;
  return 'public';
}

/**
 * The IPv4 address an IPv6 one carries, when it is one of the forms that reach an IPv4 host:
 * IPv4-mapped (::ffff:0:0/96), IPv4-compatible (::/96, but :: and ::1), NAT64 (64:ff9b::/96),
 * 6to4 (2002::/16: the 32 bits after the prefix) and Teredo (2001::/32: the client, the last 32
 * bits inverted).
 */
export function embeddedIPv4(address: string): string | undefined {
  const words = ipv6Words(address);
  if (!words) return undefined;
  const zero = (from: number, to: number) => words.slice(from, to).every((word) => word === 0);
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  if (zero(0, 5) && words[5] === 0xffff) return v4(words[6]!, words[7]!);
  if (zero(0, 6) && (words[6] !== 0 || words[7]! > 1)) return v4(words[6]!, words[7]!);
  if (words[0] === 0x64 && words[1] === 0xff9b && zero(2, 6)) return v4(words[6]!, words[7]!);
  if (words[0] === 0x2002) return v4(words[1]!, words[2]!);
  if (words[0] === 0x2001 && words[1] === 0) return v4(words[6]! ^ 0xffff, words[7]! ^ 0xffff);
  return undefined;
}

/** The eight 16-bit words of an IPv6 literal (`::` expanded, a trailing dotted IPv4 read as two words); undefined when it is not one. */
export function ipv6Words(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, '').toLowerCase();
  if (!isIPv6(text)) return undefined;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const part = (piece: string | undefined) => (piece ? piece.split(':').map((word) => Number.parseInt(word, 16)) : []);
  const front = part(head);
  const back = part(tail);
  const words = tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  return words.length === 8 && words.every((word) => Number.isInteger(word) && word >= 0 && word <= 0xffff) ? words : undefined;
}

/** Host names that are the cloud metadata services by name, refused before any DNS is asked. */
const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

/** True for a host name the guard refuses by its name alone (a name's trailing dot ignored). */
export const isMetadataName = (hostname: string): boolean => METADATA_NAMES.has(hostname.toLowerCase().replace(/\.$/, ''));

/** Which kinds an outbound request may reach besides `public`. */
export interface AddressAllowance {
  /** `private`: RFC 1918, carrier-grade NAT, unique-local (LEARNBASE_OUTBOUND_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** `loopback`: the tests' providers on 127.0.0.1, never a deployment's. */
  allowLoopback: boolean;
}

/** Whether the guard lets a connection to an address of `kind` through. */
export function kindAllowed(kind: AddressKind, allowance: AddressAllowance): boolean {
  if (kind === 'public') return true;
  if (kind === 'private') return allowance.allowPrivate;
  if (kind === 'loopback') return allowance.allowLoopback;
  return false;
}
