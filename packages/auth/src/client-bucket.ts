/**
 * The bucket a client address's sign-in or bind attempts count in: an IPv4 address (also
 * written IPv4-mapped) as it is, an IPv6 address by its /64, since one host usually holds a
 * whole /64 and would otherwise get a fresh bucket per address.
 */
export function clientBucket(remoteAddress: string | undefined): string {
  const address = (remoteAddress ?? "unknown").replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  if (!address.includes(":")) return address;
  const [head = "", tail = ""] = address.split("%")[0]!.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = address.includes("::")
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => (parseInt(group, 16) || 0).toString(16))
    .join(":")}::/64`;
}
