import { waitFor } from "@sms/testing";
import { startWebhookWorld, type WebhookWorld } from "./harness";
import { startReceiver, type Receiver } from "./receiver";

let w: WebhookWorld;
let r: Receiver;

beforeAll(async () => {
  w = await startWebhookWorld();
  r = await startReceiver();
  // A production-like deployment: loopback not allowed at delivery time.
  await w.start({ WEBHOOK_ALLOW_LOOPBACK: "false", WEBHOOK_RETRY_SCHEDULE_MS: "100" });
});
afterAll(async () => {
  await w.close();
  await r.close();
});

describe("SSRF guard at delivery time", () => {
  // Registered while the policy allowed them (or before DNS changed): the check that counts is at connect time.
  it.each([
    ["a literal loopback address", (port: number) => `http://127.0.0.1:${port}/hook`],
    ["a host name that resolves to 127.0.0.1", (port: number) => `http://localhost:${port}/hook`],
    ["an IPv4-mapped IPv6 loopback", (port: number) => `http://[::ffff:127.0.0.1]:${port}/hook`],
    ["IPv6 loopback", (port: number) => `http://[::1]:${port}/hook`],
  ])("refuses %s, records why, and never connects", async (_name, url) => {
    const before = r.received.length;
    const accountId = (await w.account(`http://127.0.0.1:${r.port}/registered`)).accountId;
    // Written directly: registration itself refuses the mapped form even where loopback is allowed.
    await w.db.pool.query("UPDATE webhook_endpoints SET url = $2 WHERE account_id = $1", [
      accountId,
      url(r.port),
    ]);
    await w.emitEvents(accountId, 1);
    await waitFor(async () => (await w.deliveries(accountId))[0]?.status === "failed", {
      what: "failed delivery",
    });
    const { rows } = await w.db.pool.query(
      "SELECT status_code, error FROM webhook_attempts WHERE account_id = $1 ORDER BY attempt",
      [accountId],
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.status_code).toBeNull();
      expect(row.error).toMatch(/blocked|Refusing/);
    }
    expect(r.received.length).toBe(before);
  });
});
