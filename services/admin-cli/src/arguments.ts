import { isIP } from "node:net";
import { InvalidArgumentError } from "commander";
import { isPermission, PERMISSIONS, type Permission } from "@sms/auth";
import { isId } from "@sms/ids";
import { UsageError } from "./errors";
import { findSenderIdProblem } from "./sender-id";

// Commander calls these with the raw text and reports a throw as
// "… value 'x' is invalid for argument 'amount'. <our message>", naming the argument.

const INTEGER = /^[+-]?[0-9]+$/;
/** PostgreSQL INTEGER columns hold nothing above 2^31-1. */
export const INT4_MAX = 2_147_483_647;

function parseInteger(value: string): number {
  if (!INTEGER.test(value)) throw new InvalidArgumentError("Expected a whole number.");
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed))
    throw new InvalidArgumentError(`Must be at most ${Number.MAX_SAFE_INTEGER}.`);
  return parsed;
}

/** A parser for a whole number ≥ 1 (and ≤ max). */
export function positiveInteger(max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const parsed = parseInteger(value);
    if (parsed < 1) throw new InvalidArgumentError("Must be a positive whole number.");
    if (parsed > max) throw new InvalidArgumentError(`Must be at most ${max}.`);
    return parsed;
  };
}

/** A whole number ≥ 0. */
export function nonNegativeInteger(value: string): number {
  const parsed = parseInteger(value);
  if (parsed < 0) throw new InvalidArgumentError("Must be zero or more.");
  return parsed;
}

/** A whole number other than zero; negative allowed. */
export function nonZeroInteger(value: string): number {
  const parsed = parseInteger(value);
  if (parsed === 0) throw new InvalidArgumentError("Must not be zero.");
  return parsed;
}

export function accountId(value: string): string {
  if (!isId("acc", value)) throw new InvalidArgumentError("Expected an account id like acc_01J….");
  return value;
}

export function keyId(value: string): string {
  if (!isId("key", value)) throw new InvalidArgumentError("Expected a key id like key_01J….");
  return value;
}

export function senderId(value: string): string {
  const problem = findSenderIdProblem(value);
  if (problem) throw new InvalidArgumentError(`Not a valid sender id: ${problem}.`);
  return value;
}

/** A display name: trimmed, 1–100 characters. */
export function displayName(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length === 0) throw new InvalidArgumentError("Must not be empty.");
  if (trimmed.length > 100) throw new InvalidArgumentError("Must be at most 100 characters.");
  return trimmed;
}

/** A free-text note for the ledger: 1–500 characters. */
export function note(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length === 0) throw new InvalidArgumentError("Must not be empty.");
  if (trimmed.length > 500) throw new InvalidArgumentError("Must be at most 500 characters.");
  return trimmed;
}

/** A comma-separated list of known permissions, deduplicated. */
export function permissionList(value: string): Permission[] {
  const items = value.split(",").map((item) => item.trim());
  if (items.some((item) => item === ""))
    throw new InvalidArgumentError("Expected a comma-separated list without empty items.");
  const unknown = items.filter((item) => !isPermission(item));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      `Unknown permission ${unknown.map((item) => `'${item}'`).join(", ")}; known: ${PERMISSIONS.join(", ")}.`,
    );
  }
  return [...new Set(items as Permission[])];
}

const CARRIER_ID = /^[a-z0-9-]{1,32}$/;

/** A carrier id: 1–32 lowercase letters, digits and dashes (it names the carrier in logs and routes). */
export function carrierId(value: string): string {
  if (!CARRIER_ID.test(value))
    throw new InvalidArgumentError("Expected 1-32 lowercase letters, digits and dashes, like acme-uk.");
  return value;
}

// RFC 1123 labels; underscores too, since container and compose service names use them.
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

/** A host name or an IPv4/IPv6 address. */
export function host(value: string): string {
  if (isIP(value) === 0 && !HOSTNAME.test(value))
    throw new InvalidArgumentError("Expected a host name or an IP address.");
  return value;
}

// SMPP 3.4 §4.1.1 (bind_transmitter): system_id is a C-Octet String of at most 16 octets,
// password at most 9, system_type at most 13, each counting the terminating NULL; §3.1
// defines a C-Octet String as ASCII characters. Values are kept exactly as given (no trimming):
// they are what the carrier issued.
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function findSmppStringProblem(value: string, min: number, max: number): string | undefined {
  if (!PRINTABLE_ASCII.test(value)) return "only printable ASCII characters are allowed (SMPP 3.4 §3.1)";
  if (value.length < min) return "must not be empty";
  if (value.length > max) return `must be at most ${max} characters (SMPP 3.4 §4.1.1)`;
  return undefined;
}

/** The system_id the carrier issued us: 1–15 printable ASCII characters, stored as given. */
export function smppSystemId(value: string): string {
  const problem = findSmppStringProblem(value, 1, 15);
  if (problem) throw new InvalidArgumentError(`The system_id ${problem}.`);
  return value;
}

/** The system_type the carrier asks for: 0–12 printable ASCII characters, stored as given. */
export function smppSystemType(value: string): string {
  const problem = findSmppStringProblem(value, 0, 12);
  if (problem) throw new InvalidArgumentError(`The system_type ${problem}.`);
  return value;
}

/**
 * The bind password the carrier issued us: 0–8 printable ASCII characters, stored as given.
 * A UsageError rather than commander's InvalidArgumentError, whose message repeats the value.
 */
export function smppPassword(value: string): string {
  const problem = findSmppStringProblem(value, 0, 8);
  if (problem) throw new UsageError(`option '--password <pw>' is invalid (value not shown): it ${problem}.`);
  return value;
}

// ITU-T E.164 §6: at most 15 digits after the +.
const ROUTE_PREFIX = /^\+[0-9]{0,15}$/;
const E164_NUMBER = /^\+[1-9][0-9]{1,14}$/;

/** A route prefix: "+" and up to 15 digits; "+" alone matches every number. */
export function routePrefix(value: string): string {
  if (!ROUTE_PREFIX.test(value))
    throw new InvalidArgumentError(
      'Expected "+" followed by up to 15 digits, like +44 or + for every number.',
    );
  return value;
}

/** A destination in E.164 form: "+", a non-zero digit, then up to 14 more digits. */
export function e164Number(value: string): string {
  if (!E164_NUMBER.test(value))
    throw new InvalidArgumentError("Expected an E.164 number with a leading +, like +14155550100.");
  return value;
}

/** A route priority: a whole number from 0 (tried first) to 2147483647. */
export function routePriority(value: string): number {
  const parsed = parseInteger(value);
  if (parsed < 0) throw new InvalidArgumentError("Must be zero or more (0 is tried first).");
  if (parsed > INT4_MAX) throw new InvalidArgumentError(`Must be at most ${INT4_MAX}.`);
  return parsed;
}

/** E.164 with its + (7-15 digits), or a short code of 3-8 digits: what inbound_numbers holds. */
const INBOUND_NUMBER = /^(\+[1-9][0-9]{6,14}|[0-9]{3,8})$/;

export function inboundNumber(value: string): string {
  if (!INBOUND_NUMBER.test(value))
    throw new InvalidArgumentError(
      "Expected an E.164 number with its + (like +14155550100) or a short code of 3 to 8 digits.",
    );
  return value;
}
