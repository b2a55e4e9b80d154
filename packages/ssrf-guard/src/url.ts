import { checkAddress } from "./classify";
import { UrlNotAllowedError } from "./errors";

/** Options for assertUrlAllowed. */
export interface UrlPolicy {
  /** Permit literal 127.0.0.0/8 and ::1 hosts (tests, local use only). */
  allowLoopback?: boolean;
  /** Permit `http:` as well as `https:` (development only, docs/webhooks.md#the-endpoint). */
  allowHttp?: boolean;
}

/**
 * Parses `url` and checks it as an outbound destination: https only (unless allowHttp), no credentials,
 * and a literal IP host must not be blocked. Host names are checked at connect time by the guarded lookup.
 */
export function assertUrlAllowed(url: string, policy: UrlPolicy = {}): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UrlNotAllowedError(url, "not a valid absolute URL");
  }
  const allowed = policy.allowHttp === true ? ["https:", "http:"] : ["https:"];
  if (!allowed.includes(parsed.protocol)) {
    throw new UrlNotAllowedError(
      url,
      `scheme ${parsed.protocol} is not allowed (use ${allowed.join(" or ")})`,
    );
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw new UrlNotAllowedError(url, "credentials in the URL are not allowed");
  }
  if (parsed.hostname === "") throw new UrlNotAllowedError(url, "the URL has no host");
  // The WHATWG parser already normalizes odd IPv4 spellings (0x7f.1, 2130706433) to a dotted quad.
  const host = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname;
  const isLiteral = host.includes(":") || /^\d+\.\d+\.\d+\.\d+$/.test(host);
  if (isLiteral) {
    const verdict = checkAddress(host, policy.allowLoopback ?? false);
    if (verdict.blocked) {
      throw new UrlNotAllowedError(url, `host ${host} is a blocked address: ${verdict.reason ?? "blocked"}`);
    }
  }
  return parsed;
}
