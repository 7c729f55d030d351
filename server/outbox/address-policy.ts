// Which IP addresses a webhook may be delivered to. Only public unicast addresses are fair game:
// everything else reaches this machine, the operator's private network or the cloud's metadata
// service, which is exactly what an attacker who controls a webhook URL wants (blind SSRF).
// Classification is ipaddr.js's, from the IANA special-purpose registries.
import ipaddr from 'ipaddr.js';

/**
 * public: deliverable. private: this machine or a private network, deliverable only when the
 * operator allows private receivers (development, tests). forbidden: never deliverable.
 */
export type AddressClass = 'public' | 'private' | 'forbidden';

export interface AddressVerdict {
  class: AddressClass;
  /** ipaddr.js's name for the range, e.g. loopback, private, linkLocal, unicast. */
  range: string;
  /** What the address is, for an error message a merchant can act on. */
  description: string;
  /** The address as classified: IPv4 for an IPv4-mapped or NAT64 address. */
  address: string;
}

// Loopback and the private networks a developer's receiver can sit on.
const PRIVATE: Record<string, string> = {
  loopback: 'loopback',
  private: 'private (RFC 1918)',
  carrierGradeNat: 'carrier-grade NAT (RFC 6598)',
  uniqueLocal: 'unique local IPv6 (RFC 4193)',
};

// Never a receiver, whatever the setting: link-local holds cloud metadata services (169.254.169.254),
// 0.0.0.0 and :: connect to this machine, and the rest are not unicast destinations on the Internet.
const FORBIDDEN: Record<string, string> = {
  linkLocal: 'link-local (cloud metadata lives here)',
  unspecified: 'unspecified (0.0.0.0 or ::)',
  multicast: 'multicast',
  broadcast: 'broadcast',
  reserved: 'reserved or documentation',
  benchmarking: 'benchmarking (RFC 2544)',
  as112: 'AS112 (RFC 7534)',
  as112v6: 'AS112 (RFC 7534)',
  amt: 'AMT (RFC 7450)',
  rfc6145: 'IPv4-translated (RFC 6145)',
  rfc6052: 'local-use NAT64 (RFC 8215)',
  deprecatedSiteLocal: 'site-local IPv6 (deprecated, RFC 3879)',
  discard: 'discard-only (RFC 6666)',
  deprecatedOrchid: 'ORCHID (deprecated, RFC 4843)',
  segmentRouting: 'segment routing (RFC 9602)',
  '6to4': '6to4 tunnel (embeds an IPv4 address)',
  teredo: 'Teredo tunnel (embeds an IPv4 address)',
  orchid2: 'ORCHID (RFC 7343)',
  droneRemoteIdProtocolEntityTags: 'DRIP entity tags (RFC 9374)',
};

// Cloud metadata and platform services outside link-local: inside ranges WEBHOOK_ALLOW_PRIVATE lets
// through (unique local IPv6, carrier-grade NAT) or even public space, so they are named one by one.
// Oracle's older 192.0.0.192 sits in 192.0.0.0/24, which is refused as reserved already.
const CLOUD_SERVICES = [
  // AWS's IPv6 block for instance services: metadata at ::254, also DNS, time and EKS Pod Identity.
  ['fd00:ec2::/32', 'AWS'],
  ['fd20:ce::254/128', 'Google Cloud'],
  ['fd00:c1::a9fe:a9fe/128', 'Oracle Cloud'],
  ['fd00:42::42/128', 'Scaleway'],
  ['100.100.100.200/32', 'Alibaba Cloud'],
  // Azure's WireServer: a public address every Azure VM reaches for platform data and certificates.
  ['168.63.129.16/32', 'Azure WireServer'],
].map(([cidr, owner]) => ({ cidr: ipaddr.parseCIDR(cidr!), owner: owner! }));

// Global unicast IPv6 is 2000::/3; IANA has assigned nothing else for public hosts. This also
// catches the deprecated IPv4-compatible form (::127.0.0.1), which ipaddr.js calls unicast.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
// The well-known NAT64 prefix: the last 32 bits are the IPv4 address the gateway will reach.
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

function verdict(range: string, address: string, via = ''): AddressVerdict {
  if (range === 'unicast') return { class: 'public', range, description: `public${via}`, address };
  if (Object.hasOwn(PRIVATE, range)) return { class: 'private', range, description: `${PRIVATE[range]}${via}`, address };
  return { class: 'forbidden', range, description: `${FORBIDDEN[range] ?? range}${via}`, address };
}

/** The verdict on a parsed address: a cloud service first, whatever range it sits in, then the range. */
function judge(address: ipaddr.IPv4 | ipaddr.IPv6, range: string, via = ''): AddressVerdict {
  const owner = CLOUD_SERVICES.find(({ cidr }) => cidr[0].kind() === address.kind() && address.match(cidr))?.owner;
  if (owner) return { class: 'forbidden', range: 'cloudMetadata', description: `cloud metadata (${owner})${via}`, address: address.toString() };
  return verdict(range, address.toString(), via);
}

const classifyV4 = (address: ipaddr.IPv4, via: string) => judge(address, address.range(), via);

/** Classifies one IP address in any notation ipaddr.js reads; anything else is forbidden. */
export function classifyAddress(text: string): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(text.replace(/^\[(.*)\]$/, '$1'));
  } catch {
    return { class: 'forbidden', range: 'invalid', description: 'not an IP address', address: text };
  }
  if (parsed.kind() === 'ipv4') return classifyV4(parsed as ipaddr.IPv4, '');
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return classifyV4(v6.toIPv4Address(), ', IPv4-mapped');
  if (v6.match(NAT64)) return classifyV4(ipaddr.IPv4.parse(v6.toByteArray().slice(12).join('.')), ', through NAT64');
  const range = v6.range();
  return judge(v6, range === 'unicast' && !v6.match(GLOBAL_UNICAST_V6) ? 'reserved' : range);
}

/** True for addresses that always reach this machine: loopback and unspecified, in any form. */
export function isSelfAddress(text: string): boolean {
  const { range } = classifyAddress(text);
  return range === 'loopback' || range === 'unspecified';
}
