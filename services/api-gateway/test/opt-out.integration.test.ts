import { promoteDueScheduled } from "@sms/message-state";
import { applyOptOutKeyword } from "@sms/suppressions";
import { expectError, startTestGateway, type TestAccount, type TestGateway } from "./harness";

// Opt-out (docs/api.md#suppressions): a STOP from a number refuses every REST send to it,
// charging nothing; START lets them through again; an account sees only its own list.
let gw: TestGateway;
let a: TestAccount;
let b: TestAccount;
const phone = "+14155550140";
const other = "+14155550141";
const ourNumber = "+14155550999";
const sms = (to: string, extra: object = {}) => ({ to, message: "hello", sender_id: "ACME", ...extra });

beforeAll(async () => {
  gw = await startTestGateway();
  a = await gw.createAccount({ credits: 1000 });
  b = await gw.createAccount({ credits: 1000 });
});
afterAll(() => gw.stop());

const balanceOf = async (account: TestAccount) =>
  Number(
    (await gw.db.pool.query("SELECT balance FROM accounts WHERE id = $1", [account.accountId])).rows[0]
      .balance,
  );
const messagesOf = async (account: TestAccount) =>
  Number(
    (await gw.db.pool.query("SELECT count(*) AS n FROM messages WHERE account_id = $1", [account.accountId]))
      .rows[0].n,
  );
const stop = (text = "STOP") =>
  applyOptOutKeyword(gw.db.pool, { accountId: a.accountId, from: phone, to: ourNumber, text });

describe("opt-out", () => {
  it("after STOP refuses a send, a scheduled send and an OTP with 422 RECIPIENT_OPTED_OUT, and bulk per item, charging nothing", async () => {
    expect(await stop(" stop ")).toMatchObject({ action: "added", number: phone });
    const balance = await balanceOf(a);
    const stored = await messagesOf(a);

    const send = await gw.request("POST", "/v1/sms/send", { key: a.key, body: sms(phone) });
    expect(expectError(send, 422, "RECIPIENT_OPTED_OUT")).toMatchObject({ field: "to" });
    const later = new Date(Date.now() + 3600_000).toISOString();
    const scheduled = await gw.request("POST", "/v1/sms/send", {
      key: a.key,
      body: sms(phone, { scheduled_at: later }),
    });
    expectError(scheduled, 422, "RECIPIENT_OPTED_OUT");
    const otp = await gw.request("POST", "/v1/otp/send", { key: a.key, body: { phone } });
    expect(expectError(otp, 422, "RECIPIENT_OPTED_OUT")).toMatchObject({ field: "phone" });
    expect(await balanceOf(a)).toBe(balance);
    expect(await messagesOf(a)).toBe(stored);

    const bulk = await gw.request("POST", "/v1/sms/bulk", {
      key: a.key,
      body: {
        sender_id: "ACME",
        messages: [
          { to: phone, message: "one" },
          { to: other, message: "two" },
          { to: "+1 415 555 0140", message: "three" },
        ],
      },
    });
    expect(bulk.status).toBe(202);
    expect(bulk.body).toMatchObject({ accepted: 1, rejected: 2 });
    expect(bulk.body.messages.map((m: { index: number }) => m.index)).toEqual([1]);
    expect(bulk.body.errors).toEqual([
      expect.objectContaining({ index: 0, error: expect.objectContaining({ code: "RECIPIENT_OPTED_OUT" }) }),
      expect.objectContaining({
        index: 2,
        to: "+1 415 555 0140",
        error: expect.objectContaining({ code: "RECIPIENT_OPTED_OUT", field: "messages[2].to" }),
      }),
    ]);
    expect(await balanceOf(a)).toBe(balance - 1);
    const onlyOptedOut = await gw.request("POST", "/v1/sms/bulk", {
      key: a.key,
      body: { sender_id: "ACME", messages: [{ to: phone, message: "one" }] },
    });
    expectError(onlyOptedOut, 400, "VALIDATION_ERROR");
    expect(onlyOptedOut.body.error.details[0]).toMatchObject({ code: "RECIPIENT_OPTED_OUT" });
    expect(await balanceOf(a)).toBe(balance - 1);
  });

  it("gives the day's quota back for a send refused as opted out (checked when the send is stored)", async () => {
    const c = await gw.createAccount({ credits: 10, dailyQuota: 1 });
    await applyOptOutKeyword(gw.db.pool, {
      accountId: c.accountId,
      from: phone,
      to: ourNumber,
      text: "STOP",
    });
    const refused = await gw.request("POST", "/v1/sms/send", { key: c.key, body: sms(phone) });
    expectError(refused, 422, "RECIPIENT_OPTED_OUT");
    const sent = await gw.request("POST", "/v1/sms/send", { key: c.key, body: sms(other) });
    expect(sent.status).toBe(202);
    expectError(
      await gw.request("POST", "/v1/sms/send", { key: c.key, body: sms(other) }),
      429,
      "QUOTA_EXCEEDED",
    );
  });

  it("shows the STOP in GET /v1/suppressions to its account only; another account sends to the number", async () => {
    const listed = await gw.request("GET", "/v1/suppressions", { key: a.key });
    expect(listed.body.data).toEqual([
      { number: phone, source: "keyword", reply_number: ourNumber, created_at: expect.any(String) },
    ]);
    expect((await gw.request("GET", "/v1/suppressions", { key: b.key })).body).toEqual({
      data: [],
      next_cursor: null,
    });
    expectError(
      await gw.request("DELETE", `/v1/suppressions/${encodeURIComponent(phone)}`, { key: b.key }),
      404,
      "NOT_FOUND",
    );
    expect((await gw.request("POST", "/v1/sms/send", { key: b.key, body: sms(phone) })).status).toBe(202);
    expect((await gw.request("GET", "/v1/suppressions", { key: a.key })).body.data).toHaveLength(1);
  });

  it("after START accepts sends and OTPs to the number again", async () => {
    expect(await stop("Start")).toMatchObject({ action: "removed" });
    expect((await gw.request("POST", "/v1/sms/send", { key: a.key, body: sms(phone) })).status).toBe(202);
    expect((await gw.request("POST", "/v1/otp/send", { key: a.key, body: { phone } })).status).toBe(201);
    expect((await gw.request("GET", "/v1/suppressions", { key: a.key })).body.data).toEqual([]);
  });

  it("fails a scheduled message whose number opted out before it came due, with its credits back", async () => {
    const later = new Date(Date.now() + 3600_000);
    const accepted = await gw.request("POST", "/v1/sms/send", {
      key: a.key,
      body: sms(phone, { scheduled_at: later.toISOString() }),
    });
    const kept = await gw.request("POST", "/v1/sms/send", {
      key: a.key,
      body: sms(other, { scheduled_at: later.toISOString() }),
    });
    expect([accepted.status, kept.status]).toEqual([202, 202]);
    await stop("UNSUBSCRIBE");
    const balance = await balanceOf(a);
    const promoted = await promoteDueScheduled(gw.db.pool, { now: new Date(later.getTime() + 1000) });
    expect(promoted.map((p) => p.messageId)).toContain(kept.body.message_id);
    expect(promoted.map((p) => p.messageId)).not.toContain(accepted.body.message_id);
    const message = await gw.request("GET", `/v1/sms/${accepted.body.message_id}`, { key: a.key });
    expect(message.body).toMatchObject({ status: "failed", error_code: "RECIPIENT_OPTED_OUT" });
    // Straight from scheduled: never queued, so never dispatched.
    expect(message.body.history.map((h: { status: string }) => h.status)).toEqual(["scheduled", "failed"]);
    expect(await balanceOf(a)).toBe(balance + 1);
    const outbox = await gw.db.pool.query("SELECT 1 FROM dispatch_outbox WHERE message_id = $1", [
      accepted.body.message_id,
    ]);
    expect(outbox.rowCount).toBe(0);
  });

  it("adds and removes numbers over the API, normalized, idempotently", async () => {
    const added = await gw.request("POST", "/v1/suppressions", {
      key: b.key,
      body: { number: "+1 (415) 555-0142" },
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ number: "+14155550142", source: "api", reply_number: null });
    expect(
      (await gw.request("POST", "/v1/suppressions", { key: b.key, body: { number: "+14155550142" } })).status,
    ).toBe(200);
    expectError(
      await gw.request("POST", "/v1/sms/send", { key: b.key, body: sms("+14155550142") }),
      422,
      "RECIPIENT_OPTED_OUT",
    );
    expect((await gw.request("DELETE", "/v1/suppressions/+14155550142", { key: b.key })).status).toBe(204);
    expectError(
      await gw.request("DELETE", "/v1/suppressions/+14155550142", { key: b.key }),
      404,
      "NOT_FOUND",
    );
    expectError(
      await gw.request("POST", "/v1/suppressions", { key: b.key, body: { number: "12" } }),
      400,
      "INVALID_PHONE",
    );
  });
});
