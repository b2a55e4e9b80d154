import type { ApiKey, Prisma, PrismaClient } from "@sms/db";
import { generateApiKey, type Permission } from "./api-keys";

/** Prisma's client or a transaction's. */
type Db = PrismaClient | Prisma.TransactionClient;

export interface IssuedApiKey {
  id: string;
  /** The whole key: returned once, never stored. */
  key: string;
  prefix: string;
  name: string;
  permissions: Permission[];
}

/**
 * Issues a key for an existing account (the caller checks it exists): stores only the
 * key's SHA-256 hash and visible prefix. The admin CLI and the dashboard both issue here.
 * `id` is the caller's `newId("key")` (this package stays free of the id generator).
 */
export async function issueApiKey(
  db: Db,
  input: { id: string; accountId: string; name: string; permissions: readonly Permission[] },
): Promise<IssuedApiKey> {
  const { key, prefix, hash } = generateApiKey();
  const { id } = input;
  const permissions = [...input.permissions];
  await db.apiKey.create({
    data: { id, accountId: input.accountId, name: input.name, prefix, hash, permissions },
  });
  return { id, key, prefix, name: input.name, permissions };
}

/**
 * Revokes a key (idempotent: a second revoke keeps the first time). With `accountId`,
 * only a key of that account: another account's key is not found, like an unknown one.
 * Returns the key (without its hash) and whether it was already revoked, or null.
 */
export async function revokeApiKey(
  db: Db,
  input: { keyId: string; accountId?: string },
  now = new Date(),
): Promise<{ key: Omit<ApiKey, "hash">; alreadyRevoked: boolean } | null> {
  const scope = { id: input.keyId, ...(input.accountId ? { accountId: input.accountId } : {}) };
  const { count } = await db.apiKey.updateMany({
    where: { ...scope, revokedAt: null },
    data: { revokedAt: now },
  });
  const key = await db.apiKey.findFirst({ where: scope, omit: { hash: true } });
  if (!key?.revokedAt) return null;
  return { key, alreadyRevoked: count === 0 };
}
