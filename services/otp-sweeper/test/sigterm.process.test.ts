import { terminate, waitFor, type ServiceProcess, launchService, expectCleanStop } from "@sms/testing";
import { createHarness, type Harness } from "./harness";

const TOTAL = 1500;

let h: Harness;
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  h = await createHarness();
}, 60_000);
afterAll(async () => {
  for (const service of processes) service.kill();
  await h?.close();
});

async function launch(): Promise<{ service: ServiceProcess; port: number }> {
  // Small steps: the backlog takes many transactions, so the SIGTERM lands mid-sweep.
  return launchService(
    "otp-sweeper",
    { ...h.world.env, OTP_SWEEP_BATCH_SIZE: "20", OTP_SWEEP_INTERVAL_MS: "100" },
    processes,
  );
}

/**
 * SIGTERM to an otp-sweeper process while it sweeps a backlog of expired OTPs whose SMS are still
 * queued: it ends the step in progress and exits 0 within 10 s; a fresh process sweeps the
 * rest. "Run twice to completion" for the otp-sweeper is an OTP SMS failed twice, i.e. its
 * credit refunded twice: the balance ends where it started and each message has one refund.
 */
describe("the otp-sweeper sent SIGTERM under load", () => {
  it("exits 0 within 10 s, unready first; a fresh process fails every unsendable OTP SMS; no credit refunded twice", async () => {
    await h.db.pool.query("UPDATE accounts SET balance = 100000 WHERE id = $1", [h.accountId]);
    const before = await h.balance();
    const sent: Array<{ otpId: string; messageId: string }> = [];
    for (let i = 0; i < TOTAL; i += 50)
      sent.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(50, TOTAL - i) }, (_, j) =>
            h.send(`+1415558${String(1000 + i + j).padStart(4, "0")}`),
          ),
        )),
      );
    expect(await h.balance()).toBe(before - TOTAL);
    await h.db.pool.query("UPDATE otps SET expires_at = now() - interval '1 ms'");
    const failed = async () =>
      Number(
        (
          await h.db.pool.query<{ n: string }>(
            "SELECT count(*) AS n FROM messages WHERE status = 'failed' AND error_code = 'OTP_EXPIRED'",
          )
        ).rows[0]!.n,
      );

    const first = await launch();
    await waitFor(async () => (await failed()) >= 100, { timeoutMs: 30_000, what: "100 OTP SMS failed" });
    const stopped = await terminate(first.service, first.port);
    expectCleanStop(stopped, first.service);
    const atStop = await failed();
    expect(atStop).toBeLessThan(TOTAL);

    await launch();
    await waitFor(async () => (await failed()) === TOTAL, {
      timeoutMs: 45_000,
      intervalMs: 250,
      what: "every OTP SMS failed",
    });
    const { rows } = await h.db.pool.query<{ status: string; n: string }>(
      "SELECT status::text, count(*) AS n FROM otps GROUP BY status",
    );
    expect(rows).toEqual([{ status: "expired", n: String(TOTAL) }]);
    expect(await h.balance()).toBe(before);
    // Refunded once each: the balance is back exactly (a second refund would pass it), and the
    // refund entries (one per statement, docs/decisions.md#ledger-per-statement) cover TOTAL messages.
    const refunds = await h.db.pool.query<{ messages: number }>(
      `SELECT sum(message_count)::int AS messages FROM credit_ledger
        WHERE account_id = $1 AND reason = 'message_refund'`,
      [h.accountId],
    );
    expect(refunds.rows).toEqual([{ messages: TOTAL }]);
    console.log(`otp-sweeper: SIGTERM at ${atStop}/${TOTAL} failed, exited in ${stopped.elapsedMs} ms`);
  }, 120_000);
});
