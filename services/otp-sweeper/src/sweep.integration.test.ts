import { waitFor } from "@sms/testing";
import { createHarness, STARTING_BALANCE, type Harness } from "../test/harness";
import { metricValue } from "@sms/metrics";
import { failUnsendableOtpMessages } from "./unsendable";

// No dispatcher runs here: every OTP SMS stays queued, as in a carrier outage.
describe("otp-sweeper sweep (real PostgreSQL and Redis)", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it("marks a pending OTP past its expiry expired, and leaves one that is not due pending", async () => {
    const due = await h.send("+14155550101");
    const notDue = await h.send("+14155550102");
    await h.expireNow(due.otpId);
    const service = await h.start();
    await waitFor(async () => (await h.otpStatus(due.otpId)) === "expired", { what: "the OTP expired" });
    await waitFor(async () => (await metricValue(service.metrics.sweeps)) >= 3, { what: "more sweeps" });
    expect(await h.otpStatus(notDue.otpId)).toBe("pending");
    expect((await h.otp.get(h.accountId, due.otpId)).status).toBe("expired");
    expect(await metricValue(service.metrics.expired)).toBe(1);
  });

  it("fails the queued SMS of an expired OTP with OTP_EXPIRED, returns its credits and wipes its text", async () => {
    const { otpId, messageId } = await h.send("+14155550103");
    const charged = (await h.message(messageId)).credits_charged;
    expect(charged).toBeGreaterThan(0);
    expect(await h.balance()).toBe(STARTING_BALANCE - charged);
    expect((await h.message(messageId)).body_sealed).not.toBeNull();
    await h.expireNow(otpId);
    const service = await h.start();
    await waitFor(async () => (await h.message(messageId)).status === "failed", { what: "the SMS failed" });
    expect(await h.message(messageId)).toMatchObject({ error_code: "OTP_EXPIRED", body_sealed: null });
    expect(await h.balance()).toBe(STARTING_BALANCE);
    expect(await h.otpStatus(otpId)).toBe("expired");
    const { rows: events } = await h.db.pool.query(
      "SELECT type, payload FROM events WHERE message_id = $1 ORDER BY sequence",
      [messageId],
    );
    expect(events.map((e) => e.type)).toEqual(["message.queued", "message.failed"]);
    expect(events[1].payload).toMatchObject({ otp_id: otpId, error_code: "OTP_EXPIRED", status: "failed" });
    const { rows: ledger } = await h.db.pool.query(
      "SELECT delta::int FROM credit_ledger WHERE message_id = $1 AND reason = 'message_refund'",
      [messageId],
    );
    expect(ledger).toEqual([{ delta: charged }]);
    expect(await metricValue(service.metrics.messagesFailed)).toBe(1);
  });

  it("fails the queued SMS of a superseded OTP; the newer OTP's SMS stays queued with its text", async () => {
    const older = await h.send("+14155550104");
    const newer = await h.send("+14155550104");
    expect(await h.otpStatus(older.otpId)).toBe("canceled");
    await h.start();
    await waitFor(async () => (await h.message(older.messageId)).status === "failed", {
      what: "the superseded OTP's SMS failed",
    });
    expect((await h.message(older.messageId)).error_code).toBe("OTP_EXPIRED");
    const { rows } = await h.db.pool.query("SELECT error_message FROM messages WHERE id = $1", [
      older.messageId,
    ]);
    expect(rows[0].error_message).toMatch(/newer OTP/);
    expect(await h.message(newer.messageId)).toMatchObject({ status: "queued", error_code: null });
    expect((await h.message(newer.messageId)).body_sealed).not.toBeNull();
  });

  it("leaves the SMS of a pending OTP queued, untouched", async () => {
    const { otpId, messageId } = await h.send("+14155550105");
    const before = await h.db.pool.query("SELECT * FROM messages WHERE id = $1", [messageId]);
    const service = await h.start();
    await waitFor(async () => (await metricValue(service.metrics.sweeps)) >= 3, { what: "three sweeps" });
    const after = await h.db.pool.query("SELECT * FROM messages WHERE id = $1", [messageId]);
    expect(after.rows[0]).toEqual(before.rows[0]);
    expect(await h.otpStatus(otpId)).toBe("pending");
    expect(await metricValue(service.metrics.messagesFailed)).toBe(0);
  });

  it("never fails an expired OTP's SMS a segment of which is already on its way to a carrier", async () => {
    const { otpId, messageId } = await h.send("+14155550106");
    // What the dispatcher writes just before submit_sm leaves: the outcome is unknown.
    await h.db.pool.query(
      "INSERT INTO message_segments (message_id, seq, status, attempts) VALUES ($1, 1, 'submitting', 1)",
      [messageId],
    );
    await h.expireNow(otpId);
    const service = await h.start();
    await waitFor(async () => (await h.otpStatus(otpId)) === "expired", { what: "the OTP expired" });
    await waitFor(async () => (await metricValue(service.metrics.sweeps)) >= 3, { what: "more sweeps" });
    expect((await h.message(messageId)).status).toBe("queued");
  });

  it("never fails an SMS the dispatcher marked for sending while the sweep waited for its lock", async () => {
    const { otpId, messageId } = await h.send("+14155550107");
    await h.expireNow(otpId);
    // The dispatcher's mark: a share lock on the still-queued message, the segment
    // `submitting`, not yet committed when the sweep reads its candidates.
    const dispatcher = await h.db.pool.connect();
    try {
      await dispatcher.query("BEGIN");
      await dispatcher.query("SELECT 1 FROM messages WHERE id = $1 AND status = 'queued' FOR SHARE", [
        messageId,
      ]);
      await dispatcher.query(
        "INSERT INTO message_segments (message_id, seq, status, attempts) VALUES ($1, 1, 'submitting', 1)",
        [messageId],
      );
      const sweep = failUnsendableOtpMessages(h.db.pool, 10);
      await waitFor(
        async () =>
          (
            await h.db.pool.query(
              "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR NO KEY UPDATE OF m%'",
            )
          ).rowCount! >= 1,
        { what: "the sweep waiting for the message's lock" },
      );
      await dispatcher.query("COMMIT");
      expect(await sweep).toEqual([]);
    } finally {
      dispatcher.release();
    }
    expect((await h.message(messageId)).status).toBe("queued");
  });

  it("expires and fails a backlog larger than one batch in a single sweep", async () => {
    const sent = [];
    for (let i = 0; i < 7; i++) sent.push(await h.send(`+1415555020${i}`));
    await h.db.pool.query("UPDATE otps SET expires_at = now() - interval '1 s'");
    const service = await h.start({ OTP_SWEEP_BATCH_SIZE: "3", OTP_SWEEP_INTERVAL_MS: "60000" });
    await waitFor(async () => (await metricValue(service.metrics.messagesFailed)) === 7, {
      what: "seven SMS failed",
    });
    expect(await metricValue(service.metrics.sweeps)).toBe(1);
    expect(await metricValue(service.metrics.expired)).toBe(7);
    expect(await h.balance()).toBe(STARTING_BALANCE);
  });

  it("answers /healthz, /readyz and /metrics, and is not ready once stopping", async () => {
    const service = await h.start();
    const base = `http://127.0.0.1:${service.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", checks: { postgres: "ok" } });
    await waitFor(async () => (await metricValue(service.metrics.sweeps)) > 0, { what: "a sweep" });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^sms_otp_sweeps_total [1-9]\d*$/m);
    expect(metrics).toMatch(/^sms_otp_messages_failed_total 0$/m);
    // A stop waits for the sweep in progress; /readyz answers 503 from its first moment.
    const slow = await h.db.pool.connect();
    try {
      await slow.query("BEGIN");
      await slow.query("LOCK TABLE otps IN ACCESS EXCLUSIVE MODE");
      await waitFor(async () => (await activeSweeps(h)) > 0, { what: "a sweep blocked on the lock" });
      const stopping = service.stop();
      const during = await fetch(`${base}/readyz`);
      expect(during.status).toBe(503);
      expect(await during.json()).toEqual({ status: "shutting_down" });
      await slow.query("ROLLBACK");
      const started = Date.now();
      await stopping;
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      slow.release();
    }
  });

  it("stops within SHUTDOWN_TIMEOUT_MS even when a sweep hangs", async () => {
    const service = await h.start({ SHUTDOWN_TIMEOUT_MS: "500" });
    const blocker = await h.db.pool.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query("LOCK TABLE otps IN ACCESS EXCLUSIVE MODE");
      await waitFor(async () => (await activeSweeps(h)) > 0, { what: "a sweep blocked on the lock" });
      const started = Date.now();
      await service.stop();
      // The bound, plus up to 1 s the pool gets to close (see service.ts).
      expect(Date.now() - started).toBeLessThan(2500);
    } finally {
      await blocker.query("ROLLBACK");
      blocker.release();
    }
  });
});

/** Sessions of the otp-sweeper waiting on a lock. */
async function activeSweeps(h: Harness): Promise<number> {
  const { rows } = await h.db.pool.query(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'otp-sweeper' AND wait_event_type = 'Lock'",
  );
  return rows[0].n;
}
