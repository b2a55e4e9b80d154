/** Where Redis is: one server (or a proxy in front of several), or the seed nodes of a Redis Cluster. */
export type RedisTarget =
  | { mode: "standalone"; url: string }
  | {
      mode: "cluster";
      /** Seed nodes: the client asks any of them for the slot map, then talks to every master it lists. */
      nodes: Array<{ host: string; port: number }>;
      username?: string;
      password?: string;
      tls: boolean;
    };

const CLUSTER_SCHEMES: Record<string, boolean> = { "redis-cluster:": false, "rediss-cluster:": true };
const STANDALONE_SCHEMES = new Set(["redis:", "rediss:"]);

/**
 * Reads REDIS_URL. `redis://` and `rediss://` are one server (ioredis' own URL format);
 * `redis-cluster://[user:password@]host:port[,host:port…]` (or `rediss-cluster://` for TLS) are the
 * seed nodes of a Redis Cluster. Throws a TypeError naming the problem, never echoing a password.
 */
export function parseRedisUrl(url: string): RedisTarget {
  const scheme = /^([a-z][a-z0-9+.-]*:)\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme && STANDALONE_SCHEMES.has(scheme)) {
    if (!URL.canParse(url)) throw new TypeError(`REDIS_URL is not a valid ${scheme}// URL`);
    return { mode: "standalone", url };
  }
  if (!scheme || !(scheme in CLUSTER_SCHEMES))
    throw new TypeError(
      "REDIS_URL must start with redis://, rediss://, redis-cluster:// or rediss-cluster://",
    );
  const rest = url.slice(scheme.length + 2).replace(/\/$/, "");
  if (rest.includes("/") || rest.includes("?"))
    throw new TypeError(
      "a redis-cluster:// URL takes no database number or options: a cluster has only database 0",
    );
  const at = rest.lastIndexOf("@");
  const credentials = at >= 0 ? rest.slice(0, at) : "";
  const hosts = at >= 0 ? rest.slice(at + 1) : rest;
  const nodes = hosts.split(",").map((node) => parseNode(node.trim()));
  if (nodes.length === 0) throw new TypeError("a redis-cluster:// URL needs at least one host:port");
  const colon = credentials.indexOf(":");
  const username = decodeURIComponent(colon >= 0 ? credentials.slice(0, colon) : credentials);
  const password = colon >= 0 ? decodeURIComponent(credentials.slice(colon + 1)) : "";
  return {
    mode: "cluster",
    nodes,
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    tls: CLUSTER_SCHEMES[scheme]!,
  };
}

function parseNode(node: string): { host: string; port: number } {
  // host:port or [IPv6]:port
  const match = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9.-]+)):(\d{1,5})$/i.exec(node);
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65535)
    throw new TypeError(`a redis-cluster:// URL lists nodes as host:port, got ${JSON.stringify(node)}`);
  return { host: match[1] ?? match[2]!, port };
}
