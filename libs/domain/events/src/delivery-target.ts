import { type LookupAddress } from 'node:dns';
import { lookup as systemLookup, Resolver } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { Agent } from 'undici';

/**
 * Addresses a delivery must not reach in production: a merchant could otherwise point an endpoint at our
 * own network (loopback, private ranges, link-local cloud metadata). Checked on the address actually
 * connected to, after DNS, so a name that resolves (or re-resolves) to one is refused too.
 */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  // Unspecified, loopback and IPv4-compatible (::a.b.c.d).
  ['::', 96],
  // Forms that translate to IPv4 on the way (NAT64, 6to4, Teredo): they could reach a private IPv4.
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['2001::', 32],
  ['100::', 64],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    // IPv4-mapped (::ffff:10.0.0.1) is the IPv4 address.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return BLOCKED.check(mapped[1], 'ipv4');
    return BLOCKED.check(address, 'ipv6');
  }
  return BLOCKED.check(address, 'ipv4');
}

export class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';
}

/** Every address of a host name, as the connection would find them. */
export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>;

/**
 * The system's resolver; with `dnsPort` (tuning `eventEndpointDnsPort`, tests only) the DNS server on
 * that port of 127.0.0.1, so a test decides what a name resolves to.
 */
export function hostResolver(dnsPort: number): ResolveHost {
  if (dnsPort === 0) return (hostname) => systemLookup(hostname, { all: true });
  const resolver = new Resolver({ timeout: 2_000, tries: 1 });
  resolver.setServers([`127.0.0.1:${dnsPort}`]);
  const family = (resolve: Promise<string[]>, number: 4 | 6) =>
    resolve.then(
      (addresses) => addresses.map((address) => ({ address, family: number })),
      () => [],
    );
  return async (hostname) => {
    const found = (
      await Promise.all([family(resolver.resolve4(hostname), 4), family(resolver.resolve6(hostname), 6)])
    ).flat();
    if (found.length > 0) return found;
    throw Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
  };
}

/** Why any of these addresses of `hostname` is refused, or null. */
function refusedAmong(hostname: string, addresses: LookupAddress[]): string | null {
  const refused = addresses.find((a) => isPrivateAddress(a.address));
  return refused ? `${hostname} resolves to ${refused.address}, a private or local address` : null;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A DNS lookup that fails for private addresses: undici connects only to what it returns. */
function guardedLookup(resolve: ResolveHost) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    resolve(hostname).then(
      (list) => {
        const refused = refusedAmong(hostname, list);
        if (refused) return callback(new RefusedAddressError(refused), []);
        return options.all ? callback(null, list) : callback(null, list[0].address, list[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}

/**
 * The HTTP client of deliveries: keeps connections to endpoints alive, never follows a redirect (undici's
 * `request` does not), and in production connects only to public addresses.
 */
export function deliveryAgent(allowPrivate: boolean, resolve: ResolveHost): Agent {
  return new Agent({
    keepAliveTimeout: 10_000,
    connections: 32,
    ...(allowPrivate ? {} : { connect: { lookup: guardedLookup(resolve) } }),
  });
}

/**
 * As an endpoint is saved: a name resolving to a private address now is refused at once (each
 * delivery checks again as it connects). A name that does not resolve yet is left to that check.
 */
export async function refusedResolvedAddress(
  url: URL,
  allowPrivate: boolean,
  resolve: ResolveHost,
): Promise<string | null> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (allowPrivate || isIP(host) !== 0) return null;
  const addresses = await resolve(host).catch(() => []);
  return refusedAmong(host, addresses);
}

/** A literal IP in the URL skips DNS (and so the lookup above): checked here. */
export function refusedLiteralAddress(url: URL, allowPrivate: boolean): string | null {
  if (allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a local name`;
  return isIP(host) && isPrivateAddress(host) ? `${host} is a private or local address` : null;
}
