export { checkAddress, classifyAddress, type AddressVerdict } from "./classify";
export { createGuardedLookup, type GuardedLookupOptions } from "./lookup";
export { assertUrlAllowed, type UrlPolicy } from "./url";
export { BlockedAddressError, UrlNotAllowedError } from "./errors";
