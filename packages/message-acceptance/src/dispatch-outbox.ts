import type pg from "pg";
import type { DispatchEntry, DispatchProducer, Priority } from "@sms/queues";
import type { Logger } from "@sms/logger";
import { startLoop, type Loop } from "@sms/service-runtime";
import { dueByIdBound } from "@sms/message-state";

export interface DispatchOutboxOptions {
  /** Messages per producer call (the producer cuts them into jobs of one account and class). @defaultValue 1000 */
  chunkSize?: number;
  /** A row older than this is taken by the relay (the fast path failed or died). @defaultValue 10000 */
  staleAfterMs?: number;
  /**
   * Asked before each relay tick; false skips it. relayStale holds a transaction (and its
   * rows) while it enqueues, and a queue connection waits for Redis indefinitely.
   * @defaultValue always relay
   */
  isQueueReachable?: () => Promise<boolean>;
  /**
   * How long the ids of enqueued messages wait to have their outbox rows deleted together,
   * ms; at most a quarter of staleAfterMs, so the relay does not see them. @defaultValue 200
   */
  deleteDelayMs?: number;
  /**
   * How long a hand-off of normal and bulk messages waits for more to enqueue together, ms: after
   * the first message, and again after each hand-off while more wait (unless `chunkSize` of them
   * do). @defaultValue 20
   */
  lingerMs?: number;
  /** The same for high messages (OTPs, sends marked high), which hand off on their own. @defaultValue 5 */
  highLingerMs?: number;
}

/** The messages of one hand-off lane, and its drain while one runs. */
interface Lane {
  readonly lingerMs: number;
  readonly buffer: DispatchEntry[];
  draining: Promise<void> | null;
}

/**
 * Moves committed, queued messages onto the dispatch queues. The fast path enqueues
 * right after the commit and deletes the outbox rows; anything it could not
 * enqueue (Redis down, a crash in between) stays in dispatch_outbox and the
 * relay re-enqueues it. A message enqueued twice is harmless: a job dispatches only
 * the messages it claimed, and the dispatcher only submits segments not yet submitted.
 *
 * The rows of enqueued messages are deleted in batches (every deleteDelayMs, or at
 * once past 5,000 ids), not after each hand-off: under load that is one DELETE every
 * 200 ms instead of one per acceptance flush. A crash before the DELETE leaves rows
 * the relay enqueues again: the same harmless repeat as a crash before the hand-off.
 *
 * Hand-offs are lingerMs apart: the messages committed while one is enqueued wait lingerMs
 * after it, with those that follow, instead of going out at once. A hand-off (BullMQ's
 * addBulk, then the claims: two round trips) costs about half a millisecond of CPU whatever
 * it carries, and each dispatch job it makes costs the dispatcher its own round trips whatever
 * it holds. High messages hand off in a lane of their own, 5 ms apart, so an OTP does not
 * wait for the 20 ms of the others: 20 rather than 5 ms took about 8 % off the platform's CPU
 * per message in bench:e2e (docs/benchmarks.md#dispatch-linger).
 */
export class DispatchOutbox {
  private readonly high: Lane;
  private readonly others: Lane;
  private relayLoop: Loop | null = null;
  private readonly chunkSize: number;
  private readonly staleAfterMs: number;
  private readonly isQueueReachable: () => Promise<boolean>;
  private readonly deleteDelayMs: number;
  private enqueued: string[] = [];
  private deleteTimer: NodeJS.Timeout | null = null;
  private deletes: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: pg.Pool,
    private readonly producer: DispatchProducer,
    private readonly logger: Logger,
    options: DispatchOutboxOptions = {},
  ) {
    this.chunkSize = options.chunkSize ?? 1000;
    this.staleAfterMs = options.staleAfterMs ?? 10_000;
    this.isQueueReachable = options.isQueueReachable ?? (async () => true);
    this.high = { lingerMs: options.highLingerMs ?? 5, buffer: [], draining: null };
    this.others = { lingerMs: options.lingerMs ?? 20, buffer: [], draining: null };
    // A quarter of the stale age at most: the relay must not take rows whose DELETE is only waiting.
    this.deleteDelayMs = Math.min(options.deleteDelayMs ?? 200, Math.floor(this.staleAfterMs / 4));
  }

  /** Fast path: enqueue these committed messages soon, in bulk. */
  handOff(messages: readonly DispatchEntry[]): void {
    for (const message of messages) {
      const lane = message.priority === "high" ? this.high : this.others;
      lane.buffer.push(message);
      // Nobody waits on it: the answer to the customer went out at commit.
      lane.draining ??= this.drain(lane).finally(() => {
        lane.draining = null;
      });
    }
  }

  /** Resolves when everything handed off so far has been tried, and the rows of what was enqueued deleted. */
  async settle(): Promise<void> {
    while (this.high.draining || this.others.draining)
      await Promise.all([this.high.draining, this.others.draining]);
    await this.deleteEnqueued();
  }

  private async drain(lane: Lane): Promise<void> {
    while (lane.buffer.length > 0) {
      // A few ms first, unless a full chunk waits: the hand-offs of the acceptance flushes
      // meanwhile share one BullMQ call (one pipeline write).
      if (lane.buffer.length < this.chunkSize)
        await new Promise((resolve) => setTimeout(resolve, lane.lingerMs));
      const entries = lane.buffer.splice(0, this.chunkSize);
      try {
        await this.producer.enqueue(entries);
        for (const entry of entries) this.enqueued.push(entry.messageId);
        if (this.enqueued.length >= 5000) void this.deleteEnqueued();
        else
          this.deleteTimer ??= setTimeout(() => {
            this.deleteTimer = null;
            void this.deleteEnqueued();
          }, this.deleteDelayMs);
      } catch (error) {
        // Left in dispatch_outbox: the relay enqueues them once Redis/PostgreSQL answer again.
        this.logger.warn("dispatch hand-off failed; the outbox relay will retry", {
          count: entries.length,
          error: String(error),
        });
      }
    }
  }

  private async deleteEnqueued(): Promise<void> {
    if (this.deleteTimer) clearTimeout(this.deleteTimer);
    this.deleteTimer = null;
    const ids = this.enqueued;
    this.enqueued = [];
    // A DELETE started by a full buffer may still run: settle() promises its rows are gone too.
    const earlier = this.deletes;
    const done = ids.length > 0 ? this.deleteRows(ids) : Promise.resolve();
    this.deletes = Promise.all([earlier, done]).then(() => undefined);
    await this.deletes;
  }

  private async deleteRows(ids: string[]): Promise<void> {
    await this.pool
      .query("DELETE FROM dispatch_outbox WHERE message_id = ANY($1::text[])", [ids])
      .catch((error: unknown) =>
        // Their jobs are in Redis; the relay enqueues them once more (harmless) and deletes the rows.
        this.logger.warn("could not delete dispatch_outbox rows of enqueued messages", {
          count: ids.length,
          error: String(error),
        }),
      );
  }

  /** Enqueues outbox rows older than the stale age; returns how many. Safe to run on every replica. */
  async relayStale(limit = 1000): Promise<number> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      // SKIP LOCKED: replicas running the relay at the same time take disjoint rows.
      const { rows } = await client.query<{ message_id: string; account_id: string; priority: Priority }>(
        `SELECT o.message_id, m.account_id, m.priority::text AS priority
         FROM (SELECT message_id FROM dispatch_outbox
               WHERE created_at < now() - make_interval(secs => $1::double precision / 1000)
               ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED) AS o
         -- Messages queued, so due: the weeks ahead are left out (docs/decisions.md#partitions).
         JOIN messages AS m ON m.id = o.message_id AND m.id < $3`,
        [this.staleAfterMs, limit, dueByIdBound()],
      );
      const ids = rows.map((row) => row.message_id);
      if (ids.length > 0) {
        const entries = rows.map((row) => ({
          messageId: row.message_id,
          accountId: row.account_id,
          priority: row.priority,
        }));
        for (let i = 0; i < entries.length; i += this.chunkSize)
          await this.producer.enqueue(entries.slice(i, i + this.chunkSize));
        await client.query("DELETE FROM dispatch_outbox WHERE message_id = ANY($1::text[])", [ids]);
      }
      await client.query("COMMIT");
      return ids.length;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Runs the relay every `intervalMs` until stop(). */
  startRelay(intervalMs = 5000): void {
    this.relayLoop = startLoop({
      name: "dispatch outbox relay",
      intervalMs,
      firstTickAfterMs: intervalMs,
      logger: this.logger,
      tick: async (isStopping) => {
        if (!(await this.isQueueReachable())) throw new Error("Redis does not answer; relay skipped");
        let moved: number;
        let total = 0;
        do {
          moved = await this.relayStale();
          total += moved;
        } while (moved > 0 && !isStopping());
        if (total) this.logger.info("dispatch outbox relayed messages", { count: total });
      },
    });
  }

  async stop(): Promise<void> {
    await this.relayLoop?.stop();
    this.relayLoop = null;
    await this.settle();
  }
}
