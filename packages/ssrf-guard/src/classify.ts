import ipaddr from "ipaddr.js";

/** The verdict on one address: `blocked` with a human-readable `reason` when refused. */
export interface AddressVerdict {
  blocked: boolean;
  reason?: string;
}

function v4Ranges(list: Array<[string, string]>): Array<{ cidr: [ipaddr.IPv4, number]; reason: string }> {
  return list.map(([cidr, reason]) => ({ cidr: ipaddr.IPv4.parseCIDR(cidr), reason }));
}

function v6Ranges(list: Array<[string, string]>): Array<{ cidr: [ipaddr.IPv6, number]; reason: string }> {
  return list.map(([cidr, reason]) => ({ cidr: ipaddr.IPv6.parseCIDR(cidr), reason }));
}

/** Blocked IPv4 ranges (IANA special-purpose registry, RFC 6890), most specific first. */
const IPV4_BLOCKED = v4Ranges([
  ["255.255.255.255/32", "limited broadcast (RFC 919, RFC 8190)"],
  ["0.0.0.0/8", "unspecified / this network (RFC 1122 §3.2.1.3, RFC 6890)"],
  ["10.0.0.0/8", "private (RFC 1918)"],
  ["100.64.0.0/10", "carrier-grade NAT shared space (RFC 6598)"],
  ["127.0.0.0/8", "loopback (RFC 1122 §3.2.1.3)"],
  ["169.254.0.0/16", "link-local, incl. cloud metadata 169.254.169.254 (RFC 3927)"],
  ["172.16.0.0/12", "private (RFC 1918)"],
  ["192.0.0.0/24", "IETF protocol assignments (RFC 6890 §2.1)"],
  ["192.0.2.0/24", "documentation TEST-NET-1 (RFC 5737)"],
  ["192.88.99.0/24", "deprecated 6to4 relay anycast (RFC 7526)"],
  ["192.168.0.0/16", "private (RFC 1918)"],
  ["198.18.0.0/15", "benchmarking (RFC 2544)"],
  ["198.51.100.0/24", "documentation TEST-NET-2 (RFC 5737)"],
  ["203.0.113.0/24", "documentation TEST-NET-3 (RFC 5737)"],
  ["224.0.0.0/4", "multicast (RFC 5771)"],
  ["240.0.0.0/4", "reserved for future use (RFC 1112 §4)"],
]);

/** Blocked IPv6 ranges that do not embed an IPv4 address (RFC 6890 and later registrations). */
const IPV6_BLOCKED = v6Ranges([
  ["100::/64", "discard-only (RFC 6666)"],
  ["2001:2::/48", "benchmarking (RFC 5180)"],
  ["2001:10::/28", "deprecated ORCHID (RFC 4843)"],
  ["2001:20::/28", "ORCHIDv2 (RFC 7343)"],
  ["2001:db8::/32", "documentation (RFC 3849)"],
  ["3fff::/20", "documentation (RFC 9637)"],
  ["fc00::/7", "unique local / private (RFC 4193)"],
  ["fe80::/10", "link-local (RFC 4291 §2.5.6)"],
  ["fec0::/10", "deprecated site-local (RFC 3879)"],
  ["ff00::/8", "multicast (RFC 4291 §2.7)"],
]);

/** Only 2000::/3 is allocated for global unicast (RFC 4291 §2.4); anything else is refused. */
const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3");

const V6 = (cidr: string): [ipaddr.IPv6, number] => ipaddr.IPv6.parseCIDR(cidr);
// Parsed once: these are checked on every webhook attempt.
const V4_LOOPBACK = ipaddr.IPv4.parseCIDR("127.0.0.0/8");
const V6_LOOPBACK = V6("::1/128");
const V6_UNSPECIFIED = V6("::/128");
/** IPv4-mapped ::ffff:0:0/96 (RFC 4291 §2.5.5.2). */
const MAPPED = V6("::ffff:0:0/96");
/** IPv4-compatible ::/96, deprecated (RFC 4291 §2.5.5.1). */
const COMPATIBLE = V6("::/96");
/** IPv4-translated ::ffff:0:0:0/96 (RFC 6145 / RFC 7915 §2.2). */
const TRANSLATED = V6("::ffff:0:0:0/96");
/** NAT64 well-known prefix 64:ff9b::/96 (RFC 6052 §2.1). */
const NAT64_WKP = V6("64:ff9b::/96");
/** NAT64 local-use prefix 64:ff9b:1::/48 (RFC 8215). */
const NAT64_LOCAL = V6("64:ff9b:1::/48");
/** 6to4 2002::/16 with the IPv4 in bits 16–47 (RFC 3056 §2). */
const SIX_TO_FOUR = V6("2002::/16");
/** Teredo 2001::/32: server IPv4 in bits 32–63, client IPv4 inverted in bits 96–127 (RFC 4380 §4). */
const TEREDO = V6("2001::/32");

/**
 * RFC 6052 §2.2 layouts possible inside 64:ff9b:1::/48: prefix length, byte offsets of the embedded IPv4,
 * and the suffix bytes that must be zero for the layout to apply (byte 8 is the "u" octet, always zero).
 */
const RFC6052_LAYOUTS: ReadonlyArray<{ prefix: number; v4: number[]; suffix: number[] }> = [
  { prefix: 48, v4: [6, 7, 9, 10], suffix: [11, 12, 13, 14, 15] },
  { prefix: 56, v4: [7, 9, 10, 11], suffix: [12, 13, 14, 15] },
  { prefix: 64, v4: [9, 10, 11, 12], suffix: [13, 14, 15] },
  { prefix: 96, v4: [12, 13, 14, 15], suffix: [] },
];

const STRICT_DOTTED_QUAD = /^(?:0|[1-9]\d{0,2})(?:\.(?:0|[1-9]\d{0,2})){3}$/;

function classifyV4(addr: ipaddr.IPv4): AddressVerdict {
  for (const range of IPV4_BLOCKED) {
    if (addr.match(range.cidr)) return { blocked: true, reason: range.reason };
  }
  return { blocked: false };
}

function v4At(bytes: number[], offsets: number[], invert = false): ipaddr.IPv4 {
  return new ipaddr.IPv4(offsets.map((i) => (invert ? ~(bytes[i] ?? 0) & 0xff : (bytes[i] ?? 0))));
}

/** The first blocked embedded IPv4 among `candidates`, or allowed if every candidate is allowed. */
function classifyEmbedded(form: string, candidates: ipaddr.IPv4[]): AddressVerdict {
  for (const v4 of candidates) {
    const verdict = classifyV4(v4);
    if (verdict.blocked) {
      return { blocked: true, reason: `${form} embedding ${v4.toString()}: ${verdict.reason ?? "blocked"}` };
    }
  }
  return { blocked: false };
}

function classifyV6(addr: ipaddr.IPv6): AddressVerdict {
  const bytes = addr.toByteArray();
  const last32 = [12, 13, 14, 15];
  if (addr.match(V6_UNSPECIFIED)) return { blocked: true, reason: "unspecified (RFC 4291 §2.5.2)" };
  if (addr.match(V6_LOOPBACK)) return { blocked: true, reason: "loopback (RFC 4291 §2.5.3)" };
  if (addr.match(MAPPED)) return classifyEmbedded("IPv4-mapped (RFC 4291 §2.5.5.2)", [v4At(bytes, last32)]);
  if (addr.match(COMPATIBLE))
    return classifyEmbedded("IPv4-compatible (RFC 4291 §2.5.5.1)", [v4At(bytes, last32)]);
  if (addr.match(TRANSLATED)) return classifyEmbedded("IPv4-translated (RFC 7915)", [v4At(bytes, last32)]);
  if (addr.match(NAT64_WKP)) return classifyEmbedded("NAT64 64:ff9b::/96 (RFC 6052)", [v4At(bytes, last32)]);
  if (addr.match(NAT64_LOCAL)) {
    // The operator's prefix length inside 64:ff9b:1::/48 is unknown: check every RFC 6052 layout the
    // address is consistent with (zero suffix), and refuse if any of those readings is blocked.
    if (bytes[8] !== 0)
      return { blocked: true, reason: "NAT64 address with non-zero u octet (RFC 6052 §2.2)" };
    const candidates = RFC6052_LAYOUTS.filter((layout) => layout.suffix.every((i) => bytes[i] === 0)).map(
      (layout) => v4At(bytes, layout.v4),
    );
    return classifyEmbedded("NAT64 64:ff9b:1::/48 (RFC 8215)", candidates);
  }
  if (addr.match(SIX_TO_FOUR)) return classifyEmbedded("6to4 (RFC 3056)", [v4At(bytes, [2, 3, 4, 5])]);
  if (addr.match(TEREDO)) {
    return classifyEmbedded("Teredo (RFC 4380)", [v4At(bytes, [4, 5, 6, 7]), v4At(bytes, last32, true)]);
  }
  for (const range of IPV6_BLOCKED) {
    if (addr.match(range.cidr)) return { blocked: true, reason: range.reason };
  }
  if (!addr.match(IPV6_GLOBAL_UNICAST)) {
    return { blocked: true, reason: "reserved: outside global unicast 2000::/3 (RFC 4291 §2.4)" };
  }
  return { blocked: false };
}

/** The parsed address if `ip` is an unambiguous IPv4 dotted quad or IPv6 literal, otherwise a refusal. */
export function parseStrict(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | AddressVerdict {
  if (ip.includes(":")) {
    // An IPv6 literal may end in a dotted IPv4; ipaddr.js accepts octal/hex there, so insist on decimal.
    const dotted = /:([^:%]*\.[^:%]*)(%.*)?$/.exec(ip)?.[1];
    if (dotted !== undefined && !STRICT_DOTTED_QUAD.test(dotted)) {
      return { blocked: true, reason: `ambiguous IPv4 spelling inside IPv6 literal: ${ip}` };
    }
    if (!ipaddr.IPv6.isValid(ip)) return { blocked: true, reason: `not an IP address: ${ip}` };
    return ipaddr.IPv6.parse(ip);
  }
  if (STRICT_DOTTED_QUAD.test(ip) && ipaddr.IPv4.isValidFourPartDecimal(ip)) return ipaddr.IPv4.parse(ip);
  if (ipaddr.IPv4.isValid(ip)) {
    // inet_aton-style spelling (decimal 2130706433, octal 0177.0.0.1, hex 0x7f.1, short 127.1).
    const normalized = ipaddr.IPv4.parse(ip);
    const verdict = classifyV4(normalized);
    const reason = verdict.blocked
      ? `${verdict.reason ?? "blocked"} (non-canonical spelling of ${normalized.toString()})`
      : `ambiguous IPv4 spelling ${ip} (would be ${normalized.toString()}); use a dotted quad`;
    return { blocked: true, reason };
  }
  return { blocked: true, reason: `not an IP address: ${ip}` };
}

/** Decides whether an outbound connection to the literal address `ip` must be refused (SSRF, docs/webhooks.md#address-checks). */
export function classifyAddress(ip: string): AddressVerdict {
  const parsed = parseStrict(ip);
  if (!(parsed instanceof ipaddr.IPv4) && !(parsed instanceof ipaddr.IPv6)) return parsed;
  return parsed.kind() === "ipv4" ? classifyV4(parsed as ipaddr.IPv4) : classifyV6(parsed as ipaddr.IPv6);
}

/** True only for 127.0.0.0/8 and ::1 written plainly (not mapped or embedded forms). */
export function isPlainLoopback(ip: string): boolean {
  const parsed = parseStrict(ip);
  if (parsed instanceof ipaddr.IPv4) return parsed.match(V4_LOOPBACK);
  if (parsed instanceof ipaddr.IPv6) return parsed.match(V6_LOOPBACK);
  return false;
}

/** Like classifyAddress, but lets plain loopback through when `allowLoopback` is set. */
export function checkAddress(ip: string, allowLoopback: boolean): AddressVerdict {
  if (allowLoopback && isPlainLoopback(ip)) return { blocked: false };
  return classifyAddress(ip);
}
