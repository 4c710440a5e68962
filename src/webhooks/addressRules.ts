import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';

// §Webhooks: in production a webhook may not reach a loopback, private, link-local or otherwise internal
// address. Checked at registration (every address the name resolves to) and again when each
// connection is opened (the lookup below is the one the socket uses, so a name that re-resolves to
// an internal address after registration, DNS rebinding, is caught at the address actually dialled).

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48], // local NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** True when an IP address is public (allowed as a webhook target in production). */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped?.[1]) return isPublicAddress(mapped[1]);
    return !blocked.check(address, 'ipv6');
  }
  return false;
}

/** Host names that are internal by name, whatever they resolve to. */
function isInternalName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local') || h.endsWith('.internal') || h.endsWith('.home.arpa') || !h.includes('.');
}

type UrlProblem = { code: 'FORMAT' | 'ADDRESS_NOT_ALLOWED' | 'UNRESOLVABLE'; message: string };

/** A host that is this machine: `localhost` or a loopback address (127.0.0.0/8, ::1). */
function isLoopbackHost(url: URL): boolean {
  const host = hostOf(url).toLowerCase();
  if (host === 'localhost') return true;
  const family = isIP(host);
  if (family === 4) return host.startsWith('127.');
  if (family === 6) return host === '::1' || /^::ffff:127\./i.test(host);
  return false;
}

/**
 * A webhook URL must be a complete absolute https URL. In development a local receiver may also be
 * plain http on localhost or a loopback address (`allowLocalHttp`); every other host still needs https.
 */
export function checkUrlShape(raw: string, opts: { allowLocalHttp?: boolean } = {}): UrlProblem | null {
  let u: URL;
  const shape: UrlProblem = opts.allowLocalHttp
    ? { code: 'FORMAT', message: 'must be an absolute https URL (http only on localhost or a loopback address)' }
    : { code: 'FORMAT', message: 'must be an absolute https URL' };
  try {
    u = new URL(raw);
  } catch {
    return shape;
  }
  const localHttp = opts.allowLocalHttp === true && u.protocol === 'http:' && isLoopbackHost(u);
  if (u.protocol !== 'https:' && !localHttp) return shape;
  if (u.hostname === '') return shape;
  if (u.username !== '' || u.password !== '') return { code: 'FORMAT', message: 'must not carry credentials' };
  if (u.hash !== '') return { code: 'FORMAT', message: 'must not carry a fragment' };
  return null;
}

/** The host of a URL without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses.map((a) => a.address))));
  });

/** Production rule of §Webhooks at registration: every address the host resolves to must be public. */
export async function checkProductionAddress(raw: string, resolver: Resolver = systemResolver): Promise<UrlProblem | null> {
  const host = hostOf(new URL(raw));
  if (isIP(host))
    return isPublicAddress(host) ? null : { code: 'ADDRESS_NOT_ALLOWED', message: 'must not point to a loopback, private, link-local or internal address' };
  if (isInternalName(host)) return { code: 'ADDRESS_NOT_ALLOWED', message: 'must not point to a loopback, private, link-local or internal address' };
  let addresses: string[];
  try {
    addresses = await resolver(host);
  } catch {
    return { code: 'UNRESOLVABLE', message: 'the host name does not resolve' };
  }
  if (addresses.length === 0) return { code: 'UNRESOLVABLE', message: 'the host name does not resolve' };
  if (!addresses.every(isPublicAddress))
    return { code: 'ADDRESS_NOT_ALLOWED', message: 'must not point to a loopback, private, link-local or internal address' };
  return null;
}

export class AddressNotAllowedError extends Error {
  readonly code = 'EADDRNOTALLOWED';
  constructor(host: string) {
    super(`${host} resolves to an address webhooks may not reach (loopback, private, link-local or internal)`);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect that refuses internal addresses: the socket connects only to an
 * address this function has checked, so the check and the connection see the same DNS answer.
 */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    if (list.length === 0 || !list.every((a) => isPublicAddress(a.address))) {
      return callback(Object.assign(new AddressNotAllowedError(hostname), { errno: undefined }), []);
    }
    if (options.all) return callback(null, list);
    const first = list[0] as LookupAddress;
    return callback(null, first.address, first.family);
  });
}

/**
 * The same refusal with another resolver (tests inject one whose answers change between registration
 * and sending, §Hardening): the socket dials the address this resolver answered, after the check.
 */
export function publicOnlyLookupWith(resolver: Resolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolver(hostname).then(
      (answers) => {
        const list: LookupAddress[] = answers.filter((a) => isIP(a) !== 0).map((address) => ({ address, family: isIP(address) }));
        if (list.length === 0 || !list.every((a) => isPublicAddress(a.address))) {
          return callback(Object.assign(new AddressNotAllowedError(hostname), { errno: undefined }), []);
        }
        if (options.all) return callback(null, list);
        const first = list[0] as LookupAddress;
        return callback(null, first.address, first.family);
      },
      (err: unknown) => callback(err as NodeJS.ErrnoException, []),
    );
  };
}

/** For an IP literal, no lookup happens at connect time: check it before dialling. */
export function literalAddressAllowed(url: URL): boolean {
  const host = hostOf(url);
  return isIP(host) === 0 || isPublicAddress(host);
}

declare module 'fastify' {
  interface FastifyInstance {
    /** DNS for the production address rule (tests give one); null: the system's resolver (src/http/app.ts, Provided). */
    readonly webhookResolver: Resolver | null;
  }
}
