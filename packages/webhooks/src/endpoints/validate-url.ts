import dns from "node:dns/promises";
import { assertUrlAllowed, checkAddress, UrlNotAllowedError, type UrlPolicy } from "@sms/ssrf-guard";

/** Longest URL we store; longer ones are almost always a mistake or an attack. */
export const MAX_URL_LENGTH = 2048;

/**
 * Registration-time check of a webhook URL: scheme, no credentials, a literal IP that
 * is not blocked, and a host name whose current addresses are all allowed. Delivery
 * checks again at every connect (DNS may change); this only turns obvious mistakes
 * into a clear error now instead of failed deliveries later.
 */
export async function validateWebhookUrl(url: string, policy: UrlPolicy): Promise<URL> {
  if (url.length > MAX_URL_LENGTH)
    throw new UrlNotAllowedError(url.slice(0, 80), `longer than ${MAX_URL_LENGTH} characters`);
  const parsed = assertUrlAllowed(url, policy);
  if (parsed.hash !== "") throw new UrlNotAllowedError(url, "a fragment (#…) is never sent; remove it");
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  let addresses: { address: string }[];
  try {
    addresses = await dns.lookup(host, { all: true });
  } catch (error) {
    throw new UrlNotAllowedError(
      url,
      `host ${host} does not resolve (${(error as { code?: string }).code ?? "error"})`,
    );
  }
  for (const { address } of addresses) {
    const verdict = checkAddress(address, policy.allowLoopback ?? false);
    // The customer learns that the name is refused, never what our resolver returned for it.
    if (verdict.blocked) throw new UrlNotAllowedError(url, `host ${host} resolves to a blocked address`);
  }
  return parsed;
}
