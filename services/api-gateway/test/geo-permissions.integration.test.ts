import { sampleValue } from "@sms/metrics";
import { hashCode } from "@sms/otp";
import { expectError, startTestGateway, type TestAccount, type TestGateway } from "./harness";

// Geo permissions and the OTP pumping guard: an account sends only to its countries, and an
// OTP range with many sends and few verified codes is paused for that account.
let gw: TestGateway;
let acme: TestAccount;

beforeAll(async () => {
  gw = await startTestGateway({
    OTP_PUMPING_MIN_SENDS: "3",
    OTP_PUMPING_MIN_VERIFIED_PERCENT: "50",
  });
  acme = await gw.createAccount({ credits: 1000 });
});
afterAll(() => gw.stop());

const allow = (account: TestAccount, countries: string[]) =>
  gw.db.pool.query("UPDATE accounts SET allowed_countries = $2 WHERE id = $1", [
    account.accountId,
    countries,
  ]);
const messagesOf = async (account: TestAccount) =>
  Number(
    (await gw.db.pool.query("SELECT count(*) AS n FROM messages WHERE account_id = $1", [account.accountId]))
      .rows[0].n,
  );

describe("geo permissions", () => {
  let uk: TestAccount;
  beforeAll(async () => {
    uk = await gw.createAccount({ credits: 1000 });
    await allow(uk, ["GB", "IE"]);
  });

  it("shows the countries in GET /v1/account (null: every country)", async () => {
    expect((await gw.request("GET", "/v1/account", { key: uk.key })).body.allowed_countries).toEqual([
      "GB",
      "IE",
    ]);
    expect((await gw.request("GET", "/v1/account", { key: acme.key })).body.allowed_countries).toBeNull();
  });

  it("refuses a send to another country with 403 COUNTRY_NOT_ALLOWED, storing and charging nothing", async () => {
    const before = await messagesOf(uk);
    const refused = await gw.request("POST", "/v1/sms/send", {
      key: uk.key,
      body: { to: "+14155550100", message: "hi", sender_id: "ACME" },
    });
    expect(expectError(refused, 403, "COUNTRY_NOT_ALLOWED")).toMatchObject({ field: "to" });
    expect(await messagesOf(uk)).toBe(before);
    const sent = await gw.request("POST", "/v1/sms/send", {
      key: uk.key,
      body: { to: "+447400123456", message: "hi", sender_id: "ACME" },
    });
    expect(sent.status).toBe(202);
  });

  it("refuses per item in a bulk, and a non-geographic number when a list is set", async () => {
    const response = await gw.request("POST", "/v1/sms/bulk", {
      key: uk.key,
      body: {
        sender_id: "ACME",
        messages: [
          { to: "+447400123456", message: "uk" },
          { to: "+33612345678", message: "fr" },
          { to: "+353851234567", message: "ie" },
          { to: "+80012345678", message: "freephone" },
          // +447911 is Guernsey's (GG), not the UK's, though it shares +44.
          { to: "+447911123456", message: "guernsey" },
        ],
      },
    });
    expect(response.status).toBe(202);
    expect(response.body.accepted).toBe(2);
    expect(response.body.errors).toEqual([
      expect.objectContaining({ index: 1, error: expect.objectContaining({ code: "COUNTRY_NOT_ALLOWED" }) }),
      expect.objectContaining({ index: 3, error: expect.objectContaining({ code: "COUNTRY_NOT_ALLOWED" }) }),
      expect.objectContaining({ index: 4, error: expect.objectContaining({ code: "COUNTRY_NOT_ALLOWED" }) }),
    ]);
  });

  it("refuses an OTP to another country before counting it against the phone's limit", async () => {
    const refused = await gw.request("POST", "/v1/otp/send", {
      key: uk.key,
      body: { phone: "+14155550123" },
    });
    expect(expectError(refused, 403, "COUNTRY_NOT_ALLOWED")).toMatchObject({ field: "phone" });
    await allow(uk, []);
    const sent = await gw.request("POST", "/v1/otp/send", { key: uk.key, body: { phone: "+14155550123" } });
    expect(sent.status).toBe(201);
  });
});

describe("OTP pumping guard", () => {
  const scrape = async () => (await fetch(`${gw.healthUrl}/metrics`)).text();
  const sendOtp = (phone: string) =>
    gw.request("POST", "/v1/otp/send", { key: acme.key, body: { phone, length: 4 } });

  /** The code of an OTP, found from its stored HMAC (4 digits: at most 10,000 tries). */
  async function codeOf(otpId: string, phone: string): Promise<string> {
    const { rows } = await gw.db.pool.query("SELECT code_hmac FROM otps WHERE id = $1", [otpId]);
    const stored = rows[0].code_hmac as Buffer;
    for (let n = 0; n < 10_000; n++) {
      const code = String(n).padStart(4, "0");
      if (hashCode(gw.world.env.OTP_HMAC_SECRET!, otpId, phone, code).equals(stored)) return code;
    }
    throw new Error("no 4-digit code matches");
  }

  it("pauses a range after 3 unverified OTPs (429 OTP_SEND_LIMIT, alert metric), and reopens it when codes are verified", async () => {
    const sent = [];
    for (let i = 0; i < 3; i++) {
      const response = await sendOtp(`+44740012350${i}`);
      expect(response.status).toBe(201);
      sent.push(response.body as { otp_id: string; phone: string });
    }
    const refused = await sendOtp("+447400123509");
    expectError(refused, 429, "OTP_SEND_LIMIT");
    expect(refused.body.error.message).toContain("+447400");
    expect(refused.headers.get("retry-after")).toBe("600");
    expect(sampleValue(await scrape(), "sms_otp_pumping_refusals_total", { country: "GB" })).toBe(1);
    // Another range of the same country, and other accounts, are not paused.
    expect((await sendOtp("+447912345678")).status).toBe(201);

    for (const otp of sent.slice(0, 2)) {
      const verified = await gw.request("POST", "/v1/otp/verify", {
        key: acme.key,
        body: { otp_id: otp.otp_id, code: await codeOf(otp.otp_id, otp.phone) },
      });
      expect(verified.body).toMatchObject({ verified: true });
    }
    // 2 of 3 verified: above the 50 % asked for.
    expect((await sendOtp("+447400123509")).status).toBe(201);
  });
});
