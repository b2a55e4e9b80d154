import { Queue } from "bullmq";
import { idRange, newId } from "@sms/ids";
import { applyTransition, dueByIdBound } from "@sms/message-state";
import { insertAccount, insertMessage } from "@sms/message-state/test/fixtures";
import { queuePrefix, QUEUES, type QueueName, type WebhookDeliverJob } from "@sms/queues";
import { waitFor } from "@sms/testing";
import { toWebhookEvent, type OutboxRow } from "@sms/webhooks";
import { startRelayWorld, type RelayWorld } from "../test/relay-world";
import { relayOutbox } from "./index";
import { CLAIM_EVENTS, READ_OUTBOX_EVENTS } from "./relay.sql";

describe("outbox relay (real PostgreSQL, Redis, BullMQ)", () => {
  let w: RelayWorld;
  beforeAll(async () => {
    w = await startRelayWorld({ poolSize: 6 });
  });
  afterAll(() => w.close());

  async function jobIds(name: QueueName): Promise<string[]> {
    const queue = new Queue(name, {
      connection: w.connection,
      prefix: queuePrefix(w.world.redisPrefix, name),
    });
    const jobs = await queue.getJobs(["waiting", "delayed", "active"]);
    await queue.close();
    return jobs.map((job) => job.id!).sort();
  }

  async function webhookJobs(): Promise<WebhookDeliverJob[]> {
    const name = QUEUES.webhookDeliver;
    const queue = new Queue<WebhookDeliverJob>(name, {
      connection: w.connection,
      prefix: queuePrefix(w.world.redisPrefix, name),
    });
    const jobs = await queue.getJobs(["waiting", "delayed", "active"]);
    await queue.close();
    return jobs.map((job) => job.data);
  }

  /** A message failed before reaching a carrier: one `message.failed` outbox event. */
  async function failedMessage(accountId: string, source = "api"): Promise<string> {
    const id = await insertMessage(w.db.pool, { accountId });
    if (source !== "api")
      await w.db.pool.query(`UPDATE messages SET source = $2::"MessageSource" WHERE id = $1`, [id, source]);
    await applyTransition(w.db.pool, { messageId: id, to: "failed", at: new Date(), errorCode: "NO_ROUTE" });
    return id;
  }

  it("creates a delivery per event of an account with an endpoint, queues it, and marks every event published", async () => {
    const withEndpoint = await insertAccount(w.db.pool);
    const without = await insertAccount(w.db.pool);
    const disabled = await insertAccount(w.db.pool);
    await w.endpoints.register(withEndpoint, "http://127.0.0.1:9/hooks");
    await w.endpoints.register(disabled, "http://127.0.0.1:9/hooks");
    await w.endpoints.disable(disabled, "operator");
    const delivered = await failedMessage(withEndpoint);
    await failedMessage(without);
    const parked = await failedMessage(disabled);

    const result = await relayOutbox(w.db.pool, w.producers, { limit: 100 });
    expect(result).toEqual({ events: 3, webhooks: 1, smppReceipts: 0, statuses: { failed: 3 } });

    const { rows } = await w.db.pool.query(
      "SELECT message_id, status::text, event_type, payload, last_error FROM webhook_deliveries ORDER BY status",
    );
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.message_id === parked)).toMatchObject({
      status: "failed",
      last_error: "endpoint disabled",
    });
    const pending = rows.find((r) => r.message_id === delivered);
    expect(pending).toMatchObject({ status: "pending", event_type: "message.failed" });
    // No copy of the payload: the sender builds the body from the event row of the same id.
    expect(pending.payload).toBeNull();
    const { rows: eventRows } = await w.db.pool.query<OutboxRow>(
      `SELECT o.id, o.account_id, o.message_id, o.type, o.sequence, o.created_at, o.payload FROM events AS o JOIN webhook_deliveries AS d ON d.event_id = o.id WHERE d.message_id = $1`,
      [delivered],
    );
    const body = toWebhookEvent(eventRows[0]!);
    expect(body).toMatchObject({
      event: "message.failed",
      message_id: delivered,
      data: {
        status: "failed",
        previous_status: "queued",
        error_code: "NO_ROUTE",
        sequence: 2,
        otp_id: null,
      },
    });
    expect(JSON.stringify(body)).not.toContain("secret text");
    const { rows: events } = await w.db.pool.query("SELECT event_id FROM outbox_pending");
    expect(events).toHaveLength(0);
    const { rows: ids } = await w.db.pool.query(
      "SELECT event_id FROM webhook_deliveries WHERE status = 'pending'",
    );
    // One batch job per account per claim, and the rows written already claimed by it.
    const jobs = await webhookJobs();
    expect(jobs).toEqual([
      { accountId: withEndpoint, eventIds: ids.map((r) => r.event_id), claim: expect.any(String) },
    ]);
    const { rows: claims } = await w.db.pool.query(
      "SELECT status::text, claim FROM webhook_deliveries ORDER BY status::text DESC",
    );
    expect(claims).toEqual([
      { status: "pending", claim: jobs[0]!.claim },
      { status: "failed", claim: null },
    ]);
    expect(await relayOutbox(w.db.pool, w.producers, { limit: 100 })).toEqual({
      events: 0,
      webhooks: 0,
      smppReceipts: 0,
      statuses: {},
    });
  });

  it("writes the receipts of an SMPP-submitted message in its transaction and tells the smpp-servers at the commit", async () => {
    const accountId = await insertAccount(w.db.pool);
    const messageId = await insertMessage(w.db.pool, { accountId });
    await w.db.pool.query(`UPDATE messages SET source = 'smpp' WHERE id = $1`, [messageId]);
    await w.db.pool.query(
      `INSERT INTO smpp_submits (id, account_id, message_id, registered_delivery, source_addr, destination_addr)
       VALUES ($1, $2, $1, 1, 'ACME', '14155550100')`,
      [messageId, accountId],
    );
    const listener = await w.db.pool.connect();
    const heard: string[] = [];
    listener.on("notification", (message) => heard.push(`${message.channel}:${message.payload}`));
    await listener.query("LISTEN smpp_receipts");
    try {
      await applyTransition(w.db.pool, { messageId, to: "failed", at: new Date(), errorCode: "NO_ROUTE" });
      const result = await relayOutbox(w.db.pool, w.producers, { limit: 100 });
      expect(result).toEqual({ events: 1, webhooks: 0, smppReceipts: 1, statuses: { failed: 1 } });
      const { rows } = await w.db.pool.query(
        "SELECT submit_id, source_addr, destination_addr, message_state, text FROM smpp_receipts WHERE account_id = $1",
        [accountId],
      );
      expect(rows).toEqual([
        {
          submit_id: messageId,
          source_addr: "14155550100",
          destination_addr: "ACME",
          message_state: 5,
          text: expect.stringMatching(
            new RegExp(`^id:${messageId} sub:001 dlvrd:000 .* stat:UNDELIV err:005`),
          ),
        },
      ]);
      expect(await jobIds(QUEUES.smppDlrOut)).toEqual([]);
      await waitFor(async () => heard.length > 0, { what: "the notification" });
      expect(heard).toEqual([`smpp_receipts:${accountId}`]);
    } finally {
      await listener.query("UNLISTEN *");
      listener.release();
    }
  });

  it("queues an smpp.dlr-out job for a final event whose message has no submit record yet", async () => {
    const accountId = await insertAccount(w.db.pool);
    const messageId = await failedMessage(accountId, "smpp");
    const result = await relayOutbox(w.db.pool, w.producers, { limit: 100 });
    expect(result).toEqual({ events: 1, webhooks: 0, smppReceipts: 1, statuses: { failed: 1 } });
    const { rows } = await w.db.pool.query("SELECT id FROM events WHERE message_id = $1", [messageId]);
    expect(await jobIds(QUEUES.smppDlrOut)).toContain(rows[0].id);
    const { rows: receipts } = await w.db.pool.query("SELECT 1 FROM smpp_receipts WHERE account_id = $1", [
      accountId,
    ]);
    expect(receipts).toHaveLength(0);
  });

  it("claims the oldest pending events in order from the pending queue's key, without sorting the backlog", async () => {
    // A backlog of 20,000 events, a quarter of them still pending (the trigger queues every
    // inserted event; the relay's delete is what publishes).
    await w.db.pool.query(
      `INSERT INTO outbox_events (id, account_id, message_id, type, sequence, payload, created_at)
       SELECT 'evt_backlog' || n, 'acc_backlog', 'msg_backlog' || n, 'message.sent', 2, '{}', now() - make_interval(secs => n)
       FROM generate_series(1, 20000) AS n`,
    );
    const { rows: queued } = await w.db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM outbox_pending WHERE event_id LIKE 'evt_backlog%'",
    );
    expect(queued[0]!.n).toBe(20_000);
    await w.db.pool.query(
      "DELETE FROM outbox_pending WHERE event_id LIKE 'evt_backlog%' AND substr(event_id, 12)::int % 4 <> 0",
    );
    await w.db.pool.query("ANALYZE outbox_pending");
    const plan = await claimPlan();
    expect(plan).toContain("outbox_pending_pkey");
    // The high events by their partial index: no scan of the backlog for them either.
    expect(plan).toContain("outbox_pending_high_seq_idx");
    expect(plan).not.toMatch(/Sort Key: outbox_pending|Seq Scan on outbox_pending/);
    await w.db.pool.query("DELETE FROM outbox_pending WHERE event_id LIKE 'evt_backlog%'");
    await w.db.pool.query("DELETE FROM outbox_events WHERE account_id = 'acc_backlog'");
  });

  it("reads the claimed events by key when their day filled up after its statistics were taken", async () => {
    // Statistics taken on a near-empty day, then 20,000 events. The claim is planned for each
    // run (an unnamed statement), and a plan reads a table's size from its files, not from its
    // statistics, so it probes the day's key, where a hash join or a scan would read it all.
    // A prepared statement's generic plan would keep what it chose for the near-empty day.
    const insertEvents = (count: number) =>
      w.db.pool.query(
        `INSERT INTO outbox_events (id, account_id, message_id, type, sequence, payload)
         SELECT id, 'acc_stale', 'msg_stale' || n, 'message.sent', 2, '{}' FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n)`,
        [Array.from({ length: count }, () => newId("evt"))],
      );
    await insertEvents(30);
    await w.db.pool.query("ANALYZE outbox_events");
    await w.db.pool.query("ANALYZE outbox_pending");
    await insertEvents(20_000);
    const { rows } = await w.db.pool.query<{ day: string }>(
      "SELECT tableoid::regclass::text AS day FROM outbox_events WHERE account_id = 'acc_stale' LIMIT 1",
    );
    const ids = (
      await w.db.pool.query<{ id: string }>(
        "SELECT id FROM outbox_events WHERE account_id = 'acc_stale' LIMIT 500",
      )
    ).rows.map((row) => row.id);
    const plan = await outboxReadPlan(ids);
    expect(plan).toContain(`Index Scan using ${rows[0]!.day}_pkey`);
    // (An empty day is read in no time whatever the plan: its scan may stay a sequential one.)
    expect(plan).not.toContain(`Seq Scan on ${rows[0]!.day} `);
    expect(plan).not.toMatch(/Seq Scan on messages|Hash Join/);
    // Each event by its own key: a probe by the whole list of claimed ids, filtered to one, read
    // the list once per event.
    expect(plan).toMatch(/Index Cond: [^\n]*\(id = claimed\.event_id\)/);
    expect(plan).not.toMatch(/Index Cond: [^\n]*= ANY/);
    await w.db.pool.query(
      "DELETE FROM outbox_pending p USING outbox_events e WHERE e.id = p.event_id AND e.account_id = 'acc_stale'",
    );
    await w.db.pool.query("DELETE FROM outbox_events WHERE account_id = 'acc_stale'");
  });

  /** The claim's plan for a limit of 500 (unnamed, as the relay sends it: planned for its values). */
  async function claimPlan(): Promise<string> {
    const { rows } = await w.db.pool.query<{ "QUERY PLAN": string }>(
      `EXPLAIN ${CLAIM_EVENTS.replaceAll("$1", "500")}`,
    );
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  }

  /** The read of claimed outbox_events rows, planned for its values as an unnamed statement is. */
  async function outboxReadPlan(eventIds: string[]): Promise<string> {
    const { first, last } = idRange(eventIds);
    const { rows } = await w.db.pool.query<{ "QUERY PLAN": string }>(`EXPLAIN ${READ_OUTBOX_EVENTS}`, [
      eventIds,
      dueByIdBound(),
      first,
      last,
    ]);
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  }

  it("queues every event a statement inserts, in the order of its events", async () => {
    await w.db.pool.query(
      `INSERT INTO outbox_events (id, account_id, message_id, type, sequence, payload)
       VALUES ('evt_order_b', 'acc_order', 'msg_order', 'message.sent', 2, '{}'),
              ('evt_order_a', 'acc_order', 'msg_order', 'message.queued', 1, '{}'),
              ('evt_order_c', 'acc_order', 'msg_order', 'message.delivered', 3, '{}')`,
    );
    const { rows } = await w.db.pool.query<{ event_id: string }>(
      "SELECT event_id FROM outbox_pending WHERE event_id LIKE 'evt_order%' ORDER BY seq",
    );
    expect(rows.map((row) => row.event_id)).toEqual(["evt_order_a", "evt_order_b", "evt_order_c"]);
    await w.db.pool.query("DELETE FROM outbox_pending WHERE event_id LIKE 'evt_order%'");
    await w.db.pool.query("DELETE FROM outbox_events WHERE account_id = 'acc_order'");
  });

  it("reports a status event whose message it cannot find instead of dropping it silently, and publishes the rest", async () => {
    const accountId = await insertAccount(w.db.pool);
    await w.endpoints.register(accountId, "http://127.0.0.1:9/hooks");
    const found = await failedMessage(accountId);
    const lost = newId("evt");
    await w.db.pool.query("INSERT INTO outbox_pending (event_id, message_id, sequence) VALUES ($1, $2, 2)", [
      lost,
      newId("msg"),
    ]);
    const result = await relayOutbox(w.db.pool, w.producers, { limit: 100 });
    expect(result).toMatchObject({ events: 1, webhooks: 1, unfound: [lost] });
    const { rows } = await w.db.pool.query(
      "SELECT message_id FROM webhook_deliveries WHERE account_id = $1",
      [accountId],
    );
    expect(rows).toEqual([{ message_id: found }]);
  });

  it("two relays at once publish every event exactly once", async () => {
    const accountId = await insertAccount(w.db.pool, 10_000);
    await w.endpoints.register(accountId, "http://127.0.0.1:9/hooks");
    await Promise.all(Array.from({ length: 300 }, () => failedMessage(accountId)));
    const results = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        let total = 0;
        for (;;) {
          const { events } = await relayOutbox(w.db.pool, w.producers, { limit: 25 });
          if (events === 0) return total;
          total += events;
        }
      }),
    );
    expect(results.reduce((a, b) => a + b, 0)).toBe(300);
    const { rows } = await w.db.pool.query(
      `SELECT count(*)::int AS n, count(DISTINCT message_id)::int AS messages,
              count(*) FILTER (WHERE payload->>'message_id' <> message_id)::int AS mismatched
       FROM webhook_deliveries WHERE account_id = $1`,
      [accountId],
    );
    // Each batch's payloads travel as one JSON array: every one must land on its own event's row.
    expect(rows[0]).toEqual({ n: 300, messages: 300, mismatched: 0 });
  });
});
