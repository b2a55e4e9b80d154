import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/prisma/client";

export * from "./generated/prisma/client";

export interface Database {
  /** The Prisma client: every ordinary read and write. */
  prisma: PrismaClient;
  /** The pool behind it, for the few set-based statements Prisma cannot express (bulk unnest inserts). */
  pool: pg.Pool;
  close(): Promise<void>;
}

/**
 * Set on every connection of `createDatabase` (and of any other pool that runs the product's
 * statements: benches, test harnesses). Our statements look rows up by batches of ids (`= ANY($1)`,
 * `unnest`), most as named prepared statements. With the default random-page cost (4, a
 * spinning disk) PostgreSQL hashed whole tables for a batch of a few hundred ids, and a
 * generic plan it cached while a table was small kept doing so as the table grew: in the
 * SMPP benchmark four such lookups cost 15–20 ms each against 30,000 rows, three quarters
 * of PostgreSQL's time. At 1.1 (the data is in memory or on SSD) index probes win, in the
 * cached plans too. Forcing custom plans instead also worked but cost more: every
 * foreign-key check was then planned again (17 µs each, four per message).
 *
 * JIT is off: it pays off for long analytical scans, and ours are short. Since the message
 * tables are partitioned by week, a statement over a batch of ids (`= ANY($1)` across some
 * 30 partitions) can be estimated above `jit_above_cost`, and PostgreSQL then spent 70–130 ms
 * compiling a query that runs in 6: the SMPP receipt store of 500 receipts took 280 ms
 * instead of 8, and the smpp-server's receipt path fell from about 14,000 to 3,300 a second.
 */
export const DATABASE_SESSION_OPTIONS = "-c random_page_cost=1.1 -c jit=off";

/**
 * Builds the one Prisma client of a process (and its pg pool).
 * @param options.poolSize connections; @defaultValue 10
 * @param options.connectTimeoutMs wait for a free connection; @defaultValue 2000
 */
export function createDatabase(
  url: string,
  options: { poolSize?: number; applicationName?: string; connectTimeoutMs?: number } = {},
): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    application_name: options.applicationName,
    // How long a query waits for a free connection (or a new one). The gateway keeps it
    // short so a request gets 503 instead of hanging; workers wait longer, as backpressure.
    connectionTimeoutMillis: options.connectTimeoutMs ?? 2000,
    idleTimeoutMillis: 30000,
    options: DATABASE_SESSION_OPTIONS,
  });
  // An idle client whose server went away emits 'error' on the pool; without a
  // listener that would crash the process. The next checkout reconnects.
  pool.on("error", () => undefined);
  // A checked-out client has no pool listener: when PostgreSQL drops its connection mid-query
  // the client emits 'error', which would crash the process. The query itself rejects.
  pool.on("connect", (client) => client.on("error", () => undefined));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  let closed = false;
  return {
    prisma,
    pool,
    async close() {
      if (closed) return;
      closed = true;
      await prisma.$disconnect();
      await pool.end().catch(() => undefined);
    },
  };
}
export { Batcher, PIPELINE_WRITE_LINGER_MS } from "./batcher";
export { inTransaction, retryOnDeadlock, type Queryable } from "./transaction";

export { listenForNotifications, type NotificationOptions } from "./notifications";
export * from "./partitions";
export { olderThanCursor, type OlderThanCursor } from "./keyset";
