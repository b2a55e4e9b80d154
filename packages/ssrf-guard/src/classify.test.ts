import { classifyAddress } from "./index";

const blocked: Array<[string, RegExp]> = [
  // IPv4
  ["0.0.0.0", /unspecified/],
  ["127.0.0.1", /loopback/],
  ["127.255.255.254", /loopback/],
  ["10.1.2.3", /RFC 1918/],
  ["172.16.0.1", /RFC 1918/],
  ["172.31.255.255", /RFC 1918/],
  ["192.168.1.1", /RFC 1918/],
  ["169.254.169.254", /metadata/],
  ["100.64.0.1", /carrier-grade NAT/],
  ["100.127.255.255", /carrier-grade NAT/],
  ["224.0.0.1", /multicast/],
  ["239.255.255.250", /multicast/],
  ["255.255.255.255", /broadcast/],
  ["240.0.0.1", /reserved/],
  ["192.0.0.8", /IETF protocol/],
  ["192.0.2.10", /TEST-NET-1/],
  ["198.18.0.1", /benchmarking/],
  ["198.19.255.255", /benchmarking/],
  ["198.51.100.7", /TEST-NET-2/],
  ["203.0.113.9", /TEST-NET-3/],
  // IPv6
  ["::", /unspecified/],
  ["::1", /loopback/],
  ["0:0:0:0:0:0:0:1", /loopback/],
  ["fc00::1", /unique local/],
  ["fd12:3456::1", /unique local/],
  ["fe80::1", /link-local/],
  ["fe80::1%eth0", /link-local/],
  ["febf::1", /link-local/],
  ["ff02::1", /multicast/],
  ["2001:db8::1", /documentation/],
  ["2001:2::1", /benchmarking/],
  ["100::1", /discard/],
  ["fec0::1", /site-local/],
  ["4000::1", /outside global unicast/],
  // IPv4-mapped / compatible / translated
  ["::ffff:127.0.0.1", /IPv4-mapped.*127\.0\.0\.1.*loopback/],
  ["::ffff:7f00:1", /IPv4-mapped.*loopback/],
  ["::ffff:169.254.169.254", /IPv4-mapped.*link-local/],
  ["::ffff:10.0.0.1", /IPv4-mapped.*RFC 1918/],
  ["::127.0.0.1", /loopback/],
  ["::a00:1", /IPv4-compatible.*10\.0\.0\.1/],
  ["::ffff:0:192.168.0.1", /IPv4-translated.*RFC 1918/],
  // NAT64
  ["64:ff9b::127.0.0.1", /NAT64.*loopback/],
  ["64:ff9b::a9fe:a9fe", /NAT64.*169\.254\.169\.254/],
  ["64:ff9b:1::10.0.0.1", /NAT64 64:ff9b:1::\/48.*RFC 1918/],
  ["64:ff9b:1:7f00:0:100::", /NAT64 64:ff9b:1::\/48.*127\.0\.0\.1/], // /48 layout: 7f 00 | u | 00 01
  ["64:ff9b:1:0:a:0:100::", /NAT64 64:ff9b:1::\/48.*10\.0\.0\.1/], // /64 layout
  ["64:ff9b:1:0:100::", /non-zero u octet/],
  // 6to4 and Teredo
  ["2002:7f00:1::1", /6to4.*127\.0\.0\.1/],
  ["2002:c0a8:101::1", /6to4.*192\.168\.1\.1/],
  ["2001:0:a00:1::1", /Teredo.*10\.0\.0\.1/], // server address
  ["2001:0:808:808::80ff:fffe", /Teredo.*127\.0\.0\.1/], // client address (inverted bits)
  // odd IPv4 spellings
  ["2130706433", /loopback.*non-canonical/],
  ["0177.0.0.1", /loopback.*non-canonical/],
  ["0x7f.1", /loopback.*non-canonical/],
  ["0x7f000001", /loopback.*non-canonical/],
  ["127.1", /loopback.*non-canonical/],
  ["0", /unspecified.*non-canonical/],
  ["012.0.0.1", /RFC 1918.*non-canonical/],
  ["010.8.8.8", /ambiguous/], // octal 8.8.8.8 or decimal 10.8.8.8?
  ["134744072", /ambiguous/], // 8.8.8.8 as a number
  ["1.2.3", /ambiguous/],
  ["::ffff:0177.0.0.1", /ambiguous/],
  ["::ffff:0x7f.0.0.1", /ambiguous|not an IP/],
  // not addresses
  ["", /not an IP/],
  ["localhost", /not an IP/],
  [" 8.8.8.8", /not an IP/],
  ["08.8.8.8", /not an IP/],
  ["1.2.3.4.5", /not an IP/],
  ["256.1.1.1", /not an IP/],
  ["[::1]", /not an IP/],
];

const allowed = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.215.14",
  "172.15.255.255",
  "172.32.0.1",
  "100.63.255.255",
  "100.128.0.1",
  "198.17.255.255",
  "223.255.255.255",
  "2606:4700:4700::1111",
  "2001:4860:4860::8888",
  "::ffff:8.8.8.8",
  "64:ff9b::8.8.8.8",
  "64:ff9b:1::8.8.8.8",
  "64:ff9b:1:abcd::8.8.8.8", // /96 layout under an operator prefix
  "2002:808:808::1",
  "2001:0:808:808::f7f7:f7f7", // Teredo: server 8.8.8.8, client 8.8.8.8
];

describe("classifyAddress", () => {
  it.each(blocked)("blocks %j", (ip, reason) => {
    const verdict = classifyAddress(ip);
    expect(verdict.blocked).toBe(true);
    expect(verdict.reason).toMatch(reason);
  });

  it.each(allowed)("allows %s", (ip) => {
    expect(classifyAddress(ip)).toEqual({ blocked: false });
  });
});
