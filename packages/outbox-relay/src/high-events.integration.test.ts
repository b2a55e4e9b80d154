import { Queue } from "bullmq";
import { applyTransition } from "@sms/message-state";
import { insertAccount, insertMessage } from "@sms/message-state/test/fixtures";
import { queuePrefix, WEBHOOK_QUEUES, type WebhookDeliverJob } from "@sms/queues";
import { startRelayWorld, type RelayWorld } from "../test/relay-world";
import { relayOutbox } from "./index";

/** The events of high messages (OTPs, sends marked high) ahead of the backlog, bulk ones behind the rest (docs/webhooks.md#relay-order). */
describe("outbox relay: the events' classes (real PostgreSQL, Redis, BullMQ)", () => {
  let w: RelayWorld;
  beforeAll(async () => {
    w = await startRelayWorld({ poolSize: 4 });
  });
  afterAll(() => w.close());

  /** A message of `priority` failed before reaching a carrier: one `message.failed` event. */
  async function failedMessage(accountId: string, priority: "high" | "normal" | "bulk"): Promise<string> {
    const id = await insertMessage(w.db.pool, { accountId });
    if (priority !== "normal")
      await w.db.pool.query(`UPDATE messages SET priority = $2::"MessagePriority" WHERE id = $1`, [
        id,
        priority,
      ]);
    await applyTransition(w.db.pool, { messageId: id, to: "failed", at: new Date(), errorCode: "NO_ROUTE" });
    return id;
  }

  /** An account with an endpoint, six events of normal messages, then two of high ones. */
  async function backlogThenHigh() {
    while ((await relayOutbox(w.db.pool, w.producers, { limit: 500 })).events > 0);
    const accountId = await insertAccount(w.db.pool);
    await w.endpoints.register(accountId, "http://127.0.0.1:9/hooks");
    const backlog: string[] = [];
    for (let i = 0; i < 6; i++) backlog.push(await failedMessage(accountId, "normal"));
    const high: string[] = [];
    for (let i = 0; i < 2; i++) high.push(await failedMessage(accountId, "high"));
    const published = async () => {
      const { rows } = await w.db.pool.query<{ message_id: string }>(
        "SELECT message_id FROM webhook_deliveries WHERE account_id = $1",
        [accountId],
      );
      return rows.map((row) => row.message_id).sort();
    };
    return { accountId, backlog, high, published };
  }

  it("takes the events of high messages ahead of an older backlog, and the backlog still moves a batch a claim", async () => {
    const { backlog, high, published } = await backlogThenHigh();
    const { rows: queued } = await w.db.pool.query<{ message_id: string; high: boolean }>(
      "SELECT message_id, high FROM outbox_pending ORDER BY seq",
    );
    expect(queued).toEqual([...backlog, ...high].map((id) => ({ message_id: id, high: high.includes(id) })));

    // A claim of 3: both high events (the newest of all) and the 3 oldest of the backlog.
    expect((await relayOutbox(w.db.pool, w.producers, { limit: 3 })).events).toBe(5);
    expect(await published()).toEqual([...high, ...backlog.slice(0, 3)].sort());
    expect((await relayOutbox(w.db.pool, w.producers, { limit: 3 })).events).toBe(3);
    expect(await published()).toEqual([...high, ...backlog].sort());
  });

  it("takes the events of messages that are not bulk ahead of an older campaign's, and the campaign still moves a batch a claim", async () => {
    while ((await relayOutbox(w.db.pool, w.producers, { limit: 500 })).events > 0);
    const [campaigner, single] = [await insertAccount(w.db.pool), await insertAccount(w.db.pool)];
    await w.endpoints.register(campaigner, "http://127.0.0.1:9/hooks");
    await w.endpoints.register(single, "http://127.0.0.1:9/hooks");
    const campaign: string[] = [];
    for (let i = 0; i < 6; i++) campaign.push(await failedMessage(campaigner, "bulk"));
    const singles = [await failedMessage(single, "normal"), await failedMessage(single, "normal")];
    const { rows: queued } = await w.db.pool.query<{ message_id: string; bulk: boolean }>(
      "SELECT message_id, bulk FROM outbox_pending ORDER BY seq",
    );
    expect(queued).toEqual(
      [...campaign, ...singles].map((id) => ({ message_id: id, bulk: campaign.includes(id) })),
    );
    const published = async () => {
      const { rows } = await w.db.pool.query<{ message_id: string }>(
        "SELECT message_id FROM webhook_deliveries WHERE account_id = ANY($1)",
        [[campaigner, single]],
      );
      return rows.map((row) => row.message_id).sort();
    };

    // A claim of 2: both single sends' events (the newest of all) and the 2 oldest of the campaign.
    expect((await relayOutbox(w.db.pool, w.producers, { limit: 2 })).events).toBe(4);
    expect(await published()).toEqual([...singles, ...campaign.slice(0, 2)].sort());
    // Then the campaign alone, a batch a claim, oldest first.
    expect((await relayOutbox(w.db.pool, w.producers, { limit: 2 })).events).toBe(2);
    expect(await published()).toEqual([...singles, ...campaign.slice(0, 4)].sort());
  });

  it("a relay of high events only (webhook-delivery's high lane) takes those and leaves the rest, oldest first", async () => {
    const { accountId, backlog, high, published } = await backlogThenHigh();
    expect(await relayOutbox(w.db.pool, w.producers, { limit: 1, highOnly: true })).toMatchObject({
      events: 1,
      webhooks: 1,
    });
    expect(await published()).toEqual([high[0]]);
    expect((await relayOutbox(w.db.pool, w.producers, { limit: 10, highOnly: true })).events).toBe(1);
    expect((await relayOutbox(w.db.pool, w.producers, { limit: 10, highOnly: true })).events).toBe(0);
    expect(await published()).toEqual([...high].sort());
    const { rows } = await w.db.pool.query<{ message_id: string }>(
      "SELECT message_id FROM outbox_pending ORDER BY seq",
    );
    expect(rows.map((row) => row.message_id)).toEqual(backlog);

    // Their jobs are on the high queue, one per claim.
    const name = WEBHOOK_QUEUES.high;
    const queue = new Queue<WebhookDeliverJob>(name, {
      connection: w.connection,
      prefix: queuePrefix(w.world.redisPrefix, name),
    });
    const jobs = (await queue.getJobs(["waiting"])).filter((job) => job.data.accountId === accountId);
    await queue.close();
    expect(jobs.map((job) => [job.data.eventIds.length, job.data.high])).toEqual([
      [1, true],
      [1, true],
    ]);
  });
});
