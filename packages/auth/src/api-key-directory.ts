import type { PrismaClient } from "@sms/db";
import { hashApiKey, isPermission, isWellFormedApiKey, type Permission } from "./api-keys";

/** What a request authenticated with an API key may act as. */
export interface AuthContext {
  keyId: string;
  permissions: ReadonlySet<Permission>;
  account: {
    id: string;
    name: string;
    status: "active" | "suspended";
    requestsPerSecond: number;
    messagesPerSecond: number;
    dailyQuota: number;
    maxBatchSize: number;
  };
  senderIds: ReadonlySet<string>;
}

export interface ApiKeyDirectory {
  /** The context of a valid, unrevoked key, or null. */
  authenticate(rawKey: string): Promise<AuthContext | null>;
}

const MAX_CACHED = 10_000;
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/**
 * Looks keys up by their SHA-256 and caches the answer briefly, so a busy key
 * costs one database read per `cacheSeconds`, not one per request. A revoked key
 * stops working within that time. last_used_at is written at most once a minute per key.
 * @param options.cacheSeconds @defaultValue 5
 */
export function createApiKeyDirectory(
  prisma: PrismaClient,
  options: { cacheSeconds?: number } = {},
): ApiKeyDirectory {
  const ttlMs = (options.cacheSeconds ?? 5) * 1000;
  const cache = new Map<string, { context: AuthContext | null; expiresAt: number }>();
  const lastUsedWrites = new Map<string, number>();

  async function load(hash: string): Promise<AuthContext | null> {
    const key = await prisma.apiKey.findUnique({
      where: { hash },
      include: { account: { include: { senderIds: { select: { value: true } } } } },
    });
    if (!key || key.revokedAt) return null;
    const { account } = key;
    return {
      keyId: key.id,
      permissions: new Set(key.permissions.filter(isPermission)),
      account: {
        id: account.id,
        name: account.name,
        status: account.status,
        requestsPerSecond: account.requestsPerSecond,
        messagesPerSecond: account.messagesPerSecond,
        dailyQuota: account.dailyQuota,
        maxBatchSize: account.maxBatchSize,
      },
      senderIds: new Set(account.senderIds.map((s) => s.value)),
    };
  }

  function noteUse(keyId: string): void {
    const now = Date.now();
    if ((lastUsedWrites.get(keyId) ?? 0) > now - LAST_USED_WRITE_INTERVAL_MS) return;
    lastUsedWrites.set(keyId, now);
    if (lastUsedWrites.size > MAX_CACHED) lastUsedWrites.delete(lastUsedWrites.keys().next().value!);
    prisma.apiKey
      .update({ where: { id: keyId }, data: { lastUsedAt: new Date(now) } })
      .catch(() => lastUsedWrites.delete(keyId));
  }

  return {
    async authenticate(rawKey) {
      if (!isWellFormedApiKey(rawKey)) return null;
      const hash = hashApiKey(rawKey);
      const now = Date.now();
      const cached = cache.get(hash);
      let context: AuthContext | null;
      if (cached && cached.expiresAt > now) context = cached.context;
      else {
        context = await load(hash);
        cache.delete(hash);
        cache.set(hash, { context, expiresAt: now + ttlMs });
        if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
      }
      if (context) noteUse(context.keyId);
      return context;
    },
  };
}
