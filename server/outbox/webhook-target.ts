// Where a webhook may be sent. The URL's host is resolved and every address it resolves to is
// checked, not the text: `2130706433`, `127.1`, `[::ffff:7f00:1]`, `localhost.` and any DNS name can
// all mean 127.0.0.1. The check runs when a business registers its URL and again before each
// delivery; the connection then resolves the name once more through `guardedLookup`, which checks
// the addresses it hands to the socket, so a name that answers a public address to the check and
// 127.0.0.1 to the connection (DNS rebinding) still cannot reach anything but a public address.
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';
import { classifyAddress, isSelfAddress } from './address-policy.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a name resolves to. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Ports from and to, both included. */
export type PortRange = readonly [number, number];

/**
 * The ports a webhook URL may name unless WEBHOOK_ALLOWED_PORTS says otherwise: the web's own. On
 * any port, the attempts' outcomes would let a business map which ports answer on a host (a port scan).
 */
export const DEFAULT_WEBHOOK_PORTS: readonly PortRange[] = [
  [80, 80],
  [443, 443],
  [8443, 8443],
];

/** Every port: for the test suites, whose receivers listen where the system puts them. */
export const ANY_PORT: readonly PortRange[] = [[1, 65535]];

/** `80,443,8000-8999`: the form WEBHOOK_ALLOWED_PORTS takes. */
export const describePorts = (ranges: readonly PortRange[]) => ranges.map(([from, to]) => (from === to ? `${from}` : `${from}-${to}`)).join(',');

export interface WebhookPolicy {
  /** WEBHOOK_ALLOW_PRIVATE: loopback and private-network receivers, for development and the test suite. */
  allowPrivate: boolean;
  /** WEBHOOK_ALLOWED_PORTS: the ports a webhook URL may name; DEFAULT_WEBHOOK_PORTS when absent. */
  allowedPorts?: readonly PortRange[];
  /** The service's own URLs (where it listens, its public URL): never a webhook target, whatever the setting. */
  serviceUrls: string[];
  /** How host names are resolved; the system resolver unless a test supplies its own. */
  resolve?: Resolver;
}

export type WebhookCheck =
  | { ok: true; url: URL; port: number; addresses: ResolvedAddress[] }
  /** `permanent` problems are in the URL itself; the others (a name that does not resolve now) may pass later. */
  | { ok: false; problem: string; permanent: boolean };

/** Raised inside a connection attempt whose resolved address is not allowed. */
export class RefusedAddressError extends Error {
  readonly code = 'EWEBHOOKADDRESS';
}

export const SELF_PROBLEM = 'the webhook URL points at this service itself';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '0.0.0.0', '[::]']);

const portOf = (url: URL) => Number(url.port || (url.protocol === 'https:' ? 443 : 80));
const bare = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

/** True when `url` names the service's own address as text (its public URL or the port it listens on locally). */
export function pointsAtService(url: string, serviceUrls: string[]): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  return serviceUrls.some((service) => {
    const own = new URL(service);
    if (own.hostname === target.hostname && portOf(own) === portOf(target)) return true;
    return LOOPBACK_NAMES.has(own.hostname) && LOOPBACK_NAMES.has(target.hostname) && portOf(own) === portOf(target);
  });
}

function machineAddresses(): Set<string> {
  const addresses = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const info of list ?? []) addresses.add(classifyAddress(info.address).address);
  return addresses;
}

/** True when `address:port` reaches the service's own listener: this machine, at a port the service listens on. */
function reachesService(address: string, port: number, serviceUrls: string[]): boolean {
  let mine: Set<string> | undefined;
  const onThisMachine = (ip: string) => isSelfAddress(ip) || (mine ??= machineAddresses()).has(classifyAddress(ip).address);
  const ownPorts = serviceUrls
    .map((service) => new URL(service))
    .filter((own) => own.hostname === 'localhost' || (isIP(bare(own.hostname)) !== 0 && onThisMachine(bare(own.hostname))))
    .map(portOf);
  return ownPorts.includes(port) && onThisMachine(address);
}

const withArticle = (words: string) => `${/^(?!uni)[aeiou]/i.test(words) ? 'an' : 'a'} ${words}`;

/** Why `address` (resolved from the webhook URL's host) must not be connected to, or null. */
export function addressProblem(host: string, address: string, port: number, policy: WebhookPolicy): string | null {
  const verdict = classifyAddress(address);
  const named = bare(host) === address ? address : `${host} (${address})`;
  const what = `the webhook URL's host ${named} is ${withArticle(verdict.description)} address; webhooks go only to public addresses`;
  if (verdict.class === 'forbidden') return what;
  if (verdict.class === 'private' && !policy.allowPrivate) return `${what} (WEBHOOK_ALLOW_PRIVATE=on allows private receivers for development)`;
  if (reachesService(verdict.address, port, policy.serviceUrls)) return SELF_PROBLEM;
  return null;
}

/** Checks a webhook URL: scheme, not the service itself, and every address its host resolves to. */
export async function checkWebhookUrl(url: string, policy: WebhookPolicy): Promise<WebhookCheck> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, problem: 'the webhook URL is not a valid absolute URL', permanent: true };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { ok: false, problem: 'the webhook URL must use http or https', permanent: true };
  if (pointsAtService(url, policy.serviceUrls)) return { ok: false, problem: SELF_PROBLEM, permanent: true };
  const host = bare(parsed.hostname);
  const port = portOf(parsed);
  let addresses: ResolvedAddress[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await (policy.resolve ?? systemResolver)(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      return { ok: false, problem: `the webhook URL's host ${host} could not be resolved (${code})`, permanent: false };
    }
    if (addresses.length === 0) return { ok: false, problem: `the webhook URL's host ${host} resolves to no address`, permanent: false };
  }
  for (const { address } of addresses) {
    const problem = addressProblem(host, address, port, policy);
    if (problem) return { ok: false, problem, permanent: true };
  }
  // After the addresses, so that the service's own address is named as such whatever its port.
  const ports = policy.allowedPorts ?? DEFAULT_WEBHOOK_PORTS;
  if (!ports.some(([from, to]) => port >= from && port <= to))
    return {
      ok: false,
      problem: `the webhook URL's port ${port} is not one webhooks may use (WEBHOOK_ALLOWED_PORTS: ${describePorts(ports)})`,
      permanent: true,
    };
  return { ok: true, url: parsed, port, addresses };
}

/**
 * A `lookup` for the socket of one delivery to `port`: resolves the name again and hands the socket
 * only addresses that pass the check, so the address connected to is one that was checked.
 */
export function guardedLookup(policy: WebhookPolicy, port: number): LookupFunction {
  return (hostname, options, callback) => {
    (policy.resolve ?? systemResolver)(hostname).then(
      (resolved) => {
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const wanted = family === 4 || family === 6 ? resolved.filter((a) => a.family === family) : resolved;
        for (const { address } of resolved) {
          const problem = addressProblem(hostname, address, port, policy);
          if (problem) return callback(new RefusedAddressError(problem), '', 0);
        }
        if (wanted.length === 0) return callback(Object.assign(new Error(`${hostname} resolves to no usable address`), { code: 'ENOTFOUND' }), '', 0);
        if (options.all) return callback(null, wanted);
        return callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
