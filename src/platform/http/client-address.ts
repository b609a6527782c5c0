import { isIP } from 'node:net';

/** What `::ffff:a.b.c.d` (an IPv4 peer on a dual-stack listener) reads as once canonical: `::ffff:hhhh:hhhh`. */
const MAPPED_IPV4 = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/**
 * The address one client is counted under by the sign-in throttle and the authorize rate limit:
 * `ip` (Fastify's `request.ip`: the peer, or with a trusted proxy the address it forwarded) when it
 * is an IP address, else the connection's `peer`. Canonical, so one client has one key: an IPv4
 * peer reported as IPv4-mapped IPv6 (`::ffff:192.0.2.7`) counts as `192.0.2.7`, and IPv6 is
 * lower-case and compressed (RFC 5952). A forwarded value that is no address (`X-Forwarded-For:
 * garbage`) never becomes a key of its own: otherwise every new string would be a fresh counter.
 */
export function clientAddress(ip: string | undefined, peer: string | undefined): string {
  return canonicalAddress(ip) ?? canonicalAddress(peer) ?? 'unknown';
}

/** `address` in canonical form, or undefined when it is not an IP address. */
function canonicalAddress(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  // A zone (`fe80::1%eth0`) names the local interface, not the client.
  const text = address.trim().replace(/%.*$/, '');
  const version = isIP(text);
  if (version === 4) return text;
  if (version !== 6) return undefined;
  // The WHATWG URL parser serialises IPv6 hosts in RFC 5952 form.
  const canonical = new URL(`http://[${text}]`).hostname.slice(1, -1);
  const mapped = MAPPED_IPV4.exec(canonical);
  if (!mapped) return canonical;
  const high = parseInt(mapped[1]!, 16);
  const low = parseInt(mapped[2]!, 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}
