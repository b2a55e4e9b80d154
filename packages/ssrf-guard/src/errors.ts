/**
 * Thrown (or passed to a lookup callback) when a destination resolves to a refused address. The message
 * reaches customers (webhook attempts, the dashboard), so it names neither the address nor the reason:
 * echoing what our resolver sees maps our internal network for them. `address` and `reason` stay on the
 * error for our logs.
 */
export class BlockedAddressError extends Error {
  override readonly name = "BlockedAddressError";
  readonly code = "ERR_SSRF_BLOCKED_ADDRESS";
  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(`Refusing to connect to ${hostname}: it resolves to a blocked address`);
  }
}

/** Thrown by assertUrlAllowed when a URL is not an acceptable outbound destination. */
export class UrlNotAllowedError extends Error {
  override readonly name = "UrlNotAllowedError";
  readonly code = "ERR_SSRF_URL_NOT_ALLOWED";
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`URL not allowed: ${reason}`);
  }
}
