import { z } from "zod";

export { z };

/** Thrown when the environment does not satisfy a service's config schema. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/**
 * Parses `env` with `schema`; on failure throws a ConfigError naming every bad
 * or missing setting, so a service stops at start with a message an operator can act on.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    // The setting, not the place inside its parsed value (a list's item "WEBHOOK_CLASSES.1").
    const name = String(issue.path[0] ?? "") || "(environment)";
    const value = env[name];
    const problem = value === undefined || value === "" ? "is missing" : `is invalid (${issue.message})`;
    return `  ${name} ${problem}`;
  });
  throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
}

/** A boolean setting written as true/false/1/0/yes/no. */
export const envBoolean = (defaultValue: boolean) =>
  z
    .enum(["true", "false", "1", "0", "yes", "no"])
    .default(defaultValue ? "true" : "false")
    .transform((value) => value === "true" || value === "1" || value === "yes");

/** A whole-number setting; strings from the environment are coerced. */
export const envInt = (defaultValue: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(defaultValue);

/** A comma-separated choice of some of `choices`, each once (spaces allowed); every one when unset. */
export const envChoices = <const T extends readonly [string, ...string[]]>(choices: T) =>
  z
    .string()
    .default(choices.join(","))
    .transform((value) => [...new Set(value.split(",").map((name) => name.trim()))])
    .pipe(z.array(z.enum(choices)).min(1));

/** The event relay's settings, read by every service that runs one (the scheduler, webhook-delivery's high lane). */
export const eventRelaySettings = {
  /** Outbox events published per transaction by the event relay (webhooks, SMPP receipts), of each part of a claim (high, not bulk, oldest). */
  EVENT_RELAY_BATCH_SIZE: envInt(500, 1, 10_000),
  /** The event relay looks for new events this often when it has caught up (a status change reaches webhook.deliver within about this long). */
  EVENT_RELAY_IDLE_MS: envInt(50, 5, 60_000),
};

/** Settings every service shares. */
export const commonSettings = {
  /** PostgreSQL connection URL. */
  DATABASE_URL: z.string().url().default("postgresql://postgres@127.0.0.1:5432/sms"),
  /** Redis: redis:// or rediss:// for one server, redis-cluster://host:port,host:port (or rediss-cluster://) for a Redis Cluster. */
  REDIS_URL: z
    .string()
    .default("redis://127.0.0.1:6379")
    .refine(
      isRedisUrl,
      "expected redis://, rediss://, or redis-cluster://[user:password@]host:port,host:port",
    ),
  /** Prefix of every Redis key this deployment writes; tests use one per run. No braces: they would move the Cluster hash tags. */
  REDIS_PREFIX: z
    .string()
    .min(1)
    .regex(/^[^{}\s]+$/, "no braces or spaces")
    .default("sms"),
  /** Log level: error, warn, info, debug. */
  LOG_LEVEL: z.enum(["error", "warn", "info", "http", "debug"]).default("info"),
  /** Size of the PostgreSQL connection pool of this process. */
  DATABASE_POOL_SIZE: envInt(10, 1, 200),
};

// The shape only; @sms/redis parses it (parseRedisUrl) and this check keeps a service from starting with a bad one.
function isRedisUrl(value: string): boolean {
  if (/^rediss?:\/\//i.test(value)) return URL.canParse(value);
  const node = String.raw`(?:\[[0-9a-f:.]+\]|[a-z0-9.-]+):\d{1,5}`;
  return new RegExp(`^rediss?-cluster://(?:[^@/]*@)?${node}(?:,${node})*/?$`, "i").test(value);
}

/**
 * What a message may be and what it costs. Every service that accepts a message reads them (the
 * gateway and the SMPP server, the dispatcher and dlr-ingest for keyword auto-replies): give them
 * the same values.
 */
export const segmentSettings = {
  /** Most segments one message may have (docs/messages.md#segments-and-encoding). */
  MAX_SEGMENTS: envInt(10, 1, 255),
  /** Credits charged per segment (docs/messages.md#credits). */
  CREDITS_PER_SEGMENT: envInt(1, 0, 1000),
};
