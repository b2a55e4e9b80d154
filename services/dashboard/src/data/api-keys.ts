import { issueApiKey, isPermission, PERMISSIONS, revokeApiKey, type Permission } from "@sms/auth";
import { olderThanCursor, type PrismaClient } from "@sms/db";
import { isId, newId } from "@sms/ids";
import { decodeCursor, toPage, type Page } from "../pagination";

const listed = {
  id: true,
  name: true,
  prefix: true,
  permissions: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
} as const;

export type ApiKeyRow = {
  id: string;
  name: string;
  prefix: string;
  permissions: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

/** One account's keys (never their hashes), newest first. */
export async function listApiKeys(
  prisma: PrismaClient,
  accountId: string,
  page: { cursor: unknown; size: number },
): Promise<Page<ApiKeyRow>> {
  const cursor = decodeCursor(page.cursor, (id) => isId("key", id));
  const rows = await prisma.apiKey.findMany({
    where: { accountId, ...(cursor && olderThanCursor("createdAt", "id", cursor)) },
    select: listed,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.size + 1,
  });
  return toPage(rows, page.size, (row) => ({ at: row.createdAt, id: row.id }));
}

export interface NewKeyForm {
  name: string;
  permissions: string[];
}

/** Reads the "new key" form: the name and permissions, or an error per field. */
export function parseNewKeyForm(body: Record<string, unknown>): {
  form: NewKeyForm;
  value?: { name: string; permissions: Permission[] };
  errors: Partial<Record<"name" | "permissions", string>>;
} {
  const name = typeof body.name === "string" ? body.name.trim() : "";
  const raw = body.permissions;
  const given = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter(
    (p): p is string => typeof p === "string",
  );
  const form = { name: name.slice(0, 200), permissions: given };
  const errors: Partial<Record<"name" | "permissions", string>> = {};
  if (name.length === 0) errors.name = "Give the key a name, e.g. the system that will use it.";
  else if (name.length > 64) errors.name = "Use at most 64 characters.";
  else if (/[\p{Cc}]/u.test(name)) errors.name = "Use letters, digits, spaces and punctuation only.";
  const permissions = [...new Set(given.filter(isPermission))];
  if (permissions.length === 0 || permissions.length !== new Set(given).size)
    errors.permissions = `Choose at least one of: ${PERMISSIONS.join(", ")}.`;
  return Object.keys(errors).length === 0 ? { form, value: { name, permissions }, errors } : { form, errors };
}

/** Issues a key through @sms/auth, the code the admin CLI uses. */
export function createApiKey(
  prisma: PrismaClient,
  accountId: string,
  value: { name: string; permissions: Permission[] },
) {
  return issueApiKey(prisma, { id: newId("key"), accountId, ...value });
}

/** Revokes one of the account's keys; null for an unknown id or another account's. */
export async function revokeAccountKey(prisma: PrismaClient, accountId: string, keyId: string) {
  if (!isId("key", keyId)) return null;
  return revokeApiKey(prisma, { keyId, accountId });
}
