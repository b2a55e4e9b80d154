import { InvalidArgumentError } from "commander";
import { isPermission, PERMISSIONS, type Permission } from "@sms/auth";
import { isId } from "@sms/ids";
import { findSenderIdProblem } from "./sender-id";

// Commander calls these with the raw text and reports a throw as
// "… value 'x' is invalid for argument 'amount'. <our message>", naming the argument.

const INTEGER = /^[+-]?[0-9]+$/;

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
