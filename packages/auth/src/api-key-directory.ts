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
  /** Destination countries the account may send to; empty: all. */
  allowedCountries: ReadonlySet<string>;
}

export interface ApiKeyDirectory {
  /** The context of a valid, unrevoked key, or null. */
  authenticate(rawKey: string): Promise<AuthContext | null>;
  /** Drops what is cached for a key (by its hash) or for every key of an account (by its id). */
  forget(hashOrAccountId: string): void;
  /** Drops the whole cache (after a gap in the change notifications). */
  clear(): void;
}

/** The NOTIFY channel the api_keys and accounts triggers publish changes on (a key's hash or an account id). */
export const API_KEYS_CHANGED_CHANNEL = "api_keys_changed";

/** The part of a pg Pool the directory uses (one indexed read, one rare write). */
export interface SqlClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: any[] }>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const MAX_CACHED = 10_000;
/** Unknown keys are remembered apart, so a flood of made-up keys only pushes out other made-up keys. */
const MAX_CACHED_UNKNOWN = 10_000;
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

// One indexed read: the key, its account and the account's sender ids. Plain SQL, not the ORM:
// the ORM's query compiler spent ~100 ms of CPU on this include tree per read, a stall of the
// event loop that every request waiting behind it saw in its latency.
const LOAD_KEY = `
SELECT k.id AS key_id, k.permissions, k.revoked_at, a.id, a.name, a.status, a.requests_per_second,
       a.messages_per_second, a.daily_quota, a.max_batch_size, a.allowed_countries,
       COALESCE((SELECT array_agg(s.value) FROM sender_ids s WHERE s.account_id = a.id), '{}') AS sender_ids
FROM api_keys k JOIN accounts a ON a.id = k.account_id
WHERE k.hash = $1`;

/**
 * Looks keys up by their SHA-256 and caches the answer briefly, so a busy key
 * costs one database read per `cacheSeconds`, not one per request. A revoked key
 * (or a suspended account, a sender id removed, new limits) stops working within
 * `cacheSeconds` plus one read. Requests that find the entry expired share ONE read
 * (a burst at expiry is not a burst of reads). last_used_at is written at most once a minute per key.
 * `forget` (fed by the api_keys_changed notifications) makes a revocation immediate.
 * Unknown keys are cached apart from known ones: a stream of made-up
 * keys cannot push real keys out and turn every real request into a database read.
 * @param options.cacheSeconds @defaultValue 5
 * @param options.maxCached entries of each kind, known and unknown; @defaultValue 10,000
 */
export function createApiKeyDirectory(
  db: SqlClient,
  options: { cacheSeconds?: number; maxCached?: number } = {},
): ApiKeyDirectory {
  const ttlMs = (options.cacheSeconds ?? 5) * 1000;
  const maxKnown = options.maxCached ?? MAX_CACHED;
  const maxUnknown = options.maxCached ?? MAX_CACHED_UNKNOWN;
  type Entry = { context: AuthContext | null; expiresAt: number };
  const known = new Map<string, Entry>();
  const unknown = new Map<string, Entry>();
  /** Bumped by forget/clear: a read that started before must not cache what it found. */
  let generation = 0;
  const loading = new Map<string, Promise<AuthContext | null>>();
  const lastUsedWrites = new Map<string, number>();

  async function load(hash: string): Promise<AuthContext | null> {
    const { rows } = await db.query({ name: "auth-load-key", text: LOAD_KEY, values: [hash] });
    const row = rows[0];
    if (!row || row.revoked_at) return null;
    return {
      keyId: row.key_id,
      permissions: new Set((row.permissions as string[]).filter(isPermission)),
      account: {
        id: row.id,
        name: row.name,
        status: row.status,
        requestsPerSecond: row.requests_per_second,
        messagesPerSecond: row.messages_per_second,
        dailyQuota: row.daily_quota,
        maxBatchSize: row.max_batch_size,
      },
      senderIds: new Set(row.sender_ids as string[]),
      allowedCountries: new Set(row.allowed_countries as string[]),
    };
  }

  function loadOnce(hash: string): Promise<AuthContext | null> {
    let pending = loading.get(hash);
    if (!pending) {
      const startedAt = Date.now();
      const startedIn = generation;
      pending = load(hash)
        .then((context) => {
          known.delete(hash);
          unknown.delete(hash);
          if (startedIn !== generation) return context;
          const cache = context ? known : unknown;
          cache.set(hash, { context, expiresAt: startedAt + ttlMs });
          if (cache.size > (context ? maxKnown : maxUnknown)) cache.delete(cache.keys().next().value!);
          return context;
        })
        .finally(() => loading.delete(hash));
      loading.set(hash, pending);
    }
    return pending;
  }

  function noteUse(keyId: string): void {
    const now = Date.now();
    if ((lastUsedWrites.get(keyId) ?? 0) > now - LAST_USED_WRITE_INTERVAL_MS) return;
    lastUsedWrites.set(keyId, now);
    if (lastUsedWrites.size > MAX_CACHED) lastUsedWrites.delete(lastUsedWrites.keys().next().value!);
    db.query({
      name: "auth-note-use",
      text: "UPDATE api_keys SET last_used_at = $2 WHERE id = $1",
      values: [keyId, new Date(now)],
    }).catch(() => lastUsedWrites.delete(keyId));
  }

  return {
    async authenticate(rawKey) {
      if (!isWellFormedApiKey(rawKey)) return null;
      const hash = hashApiKey(rawKey);
      const cached = known.get(hash) ?? unknown.get(hash);
      const context = cached && cached.expiresAt > Date.now() ? cached.context : await loadOnce(hash);
      if (context) noteUse(context.keyId);
      return context;
    },
    forget(hashOrAccountId) {
      generation++;
      loading.delete(hashOrAccountId);
      known.delete(hashOrAccountId);
      unknown.delete(hashOrAccountId);
      for (const [hash, entry] of known)
        if (entry.context?.account.id === hashOrAccountId) known.delete(hash);
    },
    clear() {
      generation++;
      loading.clear();
      known.clear();
      unknown.clear();
    },
  };
}
