import { applyTransitions } from "@sms/message-state";
import { sampleValue } from "@sms/metrics";
import { waitFor } from "@sms/testing";
import { createHarness, type Harness } from "../test/harness";

describe("scheduler /metrics (real PostgreSQL, Redis, HTTP)", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it("counts open messages by status in PostgreSQL and the messages it promoted", async () => {
    await h.insertScheduled(new Date(Date.now() + 86_400_000), 3);
    await h.insertScheduled(new Date(Date.now() - 1000), 2);
    const scheduler = await h.start();
    const scrape = async () => (await fetch(`http://127.0.0.1:${scheduler.port}/metrics`)).text();

    const text = await waitFor(
      async () => {
        const body = await scrape();
        return sampleValue(body, "sms_scheduler_promoted_messages_total") === 2 ? body : null;
      },
      { what: "the two due messages promoted" },
    );
    expect(sampleValue(text, "sms_messages_open", { status: "scheduled" })).toBe(3);
    expect(sampleValue(text, "sms_messages_open", { status: "queued" })).toBe(2);
    expect(sampleValue(text, "sms_messages_open", { status: "sent" })).toBe(0);
    // Final statuses are not counted at scrape time (a full count of a growing table).
    expect(sampleValue(text, "sms_messages_open", { status: "delivered" })).toBeUndefined();

    // The promotions' message.queued events, counted once when the event relay publishes them.
    const relayed = await waitFor(
      async () => {
        const body = await scrape();
        return sampleValue(body, "sms_message_status_changes_total", { status: "queued" }) === 2
          ? body
          : null;
      },
      { what: "two status changes relayed" },
    );
    expect(sampleValue(relayed, "sms_event_relay_published_total", { kind: "event" })).toBe(2);

    const { rows } = await h.db.pool.query<{ id: string }>("SELECT id FROM messages WHERE status = 'queued'");
    await applyTransitions(
      h.db.pool,
      rows.map((r) => ({ messageId: r.id, to: "sent" as const, at: new Date() })),
    );
    const after = await scrape();
    expect(sampleValue(after, "sms_messages_open", { status: "queued" })).toBe(0);
    expect(sampleValue(after, "sms_messages_open", { status: "sent" })).toBe(2);

    // The fold loop moves every status change into message_counts; the gauges read the same.
    await waitFor(
      async () => {
        const left = await h.db.pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM message_count_deltas",
        );
        return left.rows[0]!.n === 0;
      },
      { what: "every delta folded" },
    );
    const folded = await scrape();
    expect(sampleValue(folded, "sms_scheduler_message_count_deltas_folded_total")).toBeGreaterThan(0);
    expect(sampleValue(folded, "sms_messages_open", { status: "scheduled" })).toBe(3);
    expect(sampleValue(folded, "sms_messages_open", { status: "sent" })).toBe(2);
  });

  it("reports the event relay's backlog: events not yet published and the age of the oldest", async () => {
    // The relay's first pass finds nothing, then it sleeps a minute: the events below wait.
    const scheduler = await h.start({ EVENT_RELAY_IDLE_MS: "60000" });
    const scrape = async () => (await fetch(`http://127.0.0.1:${scheduler.port}/metrics`)).text();
    await waitFor(async () => sampleValue(await scrape(), "sms_event_relay_passes_total") === 1, {
      what: "the relay's first pass",
    });
    expect(sampleValue(await scrape(), "sms_outbox_pending_events")).toBe(0);
    expect(sampleValue(await scrape(), "sms_outbox_oldest_pending_age_seconds")).toBe(0);
    const [messageId] = await h.insertScheduled(new Date(Date.now() + 86_400_000));
    await h.db.pool.query(
      `INSERT INTO outbox_events (id, account_id, message_id, type, sequence, payload, created_at)
       SELECT 'evt_backlog_' || n, $1, $2, 'message.queued', n, '{"status":"queued"}', now() - interval '30 seconds'
       FROM generate_series(1, 3) AS n`,
      [h.accountId, messageId],
    );
    const text = await scrape();
    expect(sampleValue(text, "sms_outbox_pending_events")).toBe(3);
    expect(sampleValue(text, "sms_outbox_oldest_pending_age_seconds")).toBeGreaterThanOrEqual(30);
    expect(sampleValue(text, "sms_outbox_oldest_pending_age_seconds")).toBeLessThan(60);
  });

  it("serves the process metrics under the sms_ prefix, and every metric has it", async () => {
    const scheduler = await h.start();
    const response = await fetch(`http://127.0.0.1:${scheduler.port}/metrics`);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(sampleValue(text, "sms_process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(sampleValue(text, "sms_nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
    const names = text
      .split("\n")
      .filter((line) => line.startsWith("# TYPE "))
      .map((line) => line.split(" ")[2]);
    expect(names.length).toBeGreaterThan(20);
    expect(names.filter((name) => !name!.startsWith("sms_"))).toEqual([]);
  });
});
