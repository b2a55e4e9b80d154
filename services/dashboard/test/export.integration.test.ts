import { waitFor } from "@sms/testing";
import { Client, startTestDashboard, type TestAccount, type TestDashboard } from "./harness";

let t: TestDashboard;
let a: TestAccount;
let b: TestAccount;

beforeAll(async () => {
  t = await startTestDashboard({ EXPORTS_PER_ACCOUNT: "1" });
  a = await t.createAccount();
  b = await t.createAccount();
});
afterAll(async () => {
  await t?.stop();
});

it("runs at most EXPORTS_PER_ACCOUNT downloads of an account, and frees the slot when one hangs up", async () => {
  // Enough rows that the socket buffers fill long before the end: the download then waits.
  await t.db.pool.query(
    `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                           status, created_at, updated_at)
     SELECT 'msg_dashexport' || lpad(n::text, 16, '0'), $1, '+14155550100', 'ACME', repeat('x', 150), 'GSM7', 1, 1,
            'queued', '2026-09-01T00:00:00Z'::timestamptz + make_interval(secs => n), now()
     FROM generate_series(1, 60000) AS n`,
    [a.accountId],
  );
  const path = "/messages/export?since=2026-09-01&until=2026-09-01";
  const alice = new Client(t.url);
  expect((await alice.signIn(a)).status).toBe(303);
  const cookie = [...alice.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; ");
  const hangUp = new AbortController();
  const stalled = await fetch(t.url + path, { headers: { cookie }, signal: hangUp.signal });
  expect(stalled.status).toBe(200);

  // Not read: the first download is still running, so a second one of the account is refused.
  const second = await alice.get(path);
  expect(second.status).toBe(429);
  expect(second.headers.get("retry-after")).toBe("5");
  expect(second.body).toContain("A download of this account is still running");
  const bob = new Client(t.url);
  expect((await bob.signIn(b)).status).toBe(303);
  expect((await bob.get(path)).status).toBe(200);

  hangUp.abort();
  const again = await waitFor(
    async () => {
      const reply = await alice.get("/messages/export?since=2026-09-02&until=2026-09-02");
      return reply.status === 200 ? reply : null;
    },
    { what: "the hung-up download to free its slot" },
  );
  expect(again.headers.get("content-type")).toBe("text/csv; charset=utf-8");
});
