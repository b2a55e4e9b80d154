import dns from "node:dns";
import type { LookupFunction } from "node:net";
import { checkAddress } from "./classify";
import { BlockedAddressError } from "./errors";

/** Options for createGuardedLookup. */
export interface GuardedLookupOptions {
  /** Permit 127.0.0.0/8 and ::1 (tests, local use only). */
  allowLoopback?: boolean;
}

type LookupCallback = Parameters<LookupFunction>[2];

/**
 * A `dns.lookup`-compatible function (for `http.request`'s `lookup`, got's `dnsLookup`, `net.connect`)
 * that resolves every address and refuses the name if any of them is blocked. It runs on every connection
 * attempt and caches nothing, so a re-pointed DNS record is caught at connect time.
 */
export function createGuardedLookup(options: GuardedLookupOptions = {}): LookupFunction {
  const allowLoopback = options.allowLoopback ?? false;
  function guardedLookup(
    hostname: string,
    optionsOrCallback: dns.LookupOptions | number | LookupCallback | undefined,
    maybeCallback?: LookupCallback,
  ): void {
    // dns.lookup's own overloads: (host, cb), (host, family, cb), (host, options, cb).
    const callback = typeof optionsOrCallback === "function" ? optionsOrCallback : maybeCallback;
    if (callback === undefined) throw new TypeError("guarded lookup: callback is required");
    const lookupOptions: dns.LookupOptions =
      typeof optionsOrCallback === "number"
        ? { family: optionsOrCallback }
        : typeof optionsOrCallback === "object" && optionsOrCallback !== null
          ? optionsOrCallback
          : {};
    dns.lookup(hostname, { ...lookupOptions, all: true }, (err, addresses) => {
      if (err) {
        callback(err, "");
        return;
      }
      for (const { address } of addresses) {
        const verdict = checkAddress(address, allowLoopback);
        if (verdict.blocked) {
          callback(new BlockedAddressError(hostname, address, verdict.reason ?? "blocked"), "");
          return;
        }
      }
      if (lookupOptions.all === true) {
        callback(null, addresses);
        return;
      }
      const first = addresses[0];
      if (first === undefined) {
        const notFound: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        notFound.code = "ENOTFOUND";
        callback(notFound, "");
        return;
      }
      callback(null, first.address, first.family);
    });
  }
  return guardedLookup as LookupFunction;
}
