import { recordQueries } from "@sms/testing";
import { expectError, startTestGateway, type TestGateway } from "./harness";

describe("OTP verify reads", () => {
  let gw: TestGateway;
  let other: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
    // A second gateway on the same database: it never sent the OTP, so it must read it first.
    other = await startTestGateway({}, gw.world);
  });
  afterAll(async () => {
    await other.stop();
    await gw.stop();
  });

  /** The OTP statements any connection sends until restore(), by name. */
  function countStatements() {
    const recorder = recordQueries();
    return {
      get names() {
        return recorder.queries.flatMap((query) => (query.name?.startsWith("otp-") ? [query.name] : []));
      },
      restore: recorder.stop,
    };
  }

  it("counts a guess with one statement where the OTP was sent, and reads it first elsewhere", async () => {
    const account = await gw.createAccount();
    const sent = await gw.request("POST", "/v1/otp/send", {
      key: account.key,
      body: { phone: "+14155550100" },
    });
    expect(sent.status).toBe(201);
    const guess = { otp_id: sent.body.otp_id, code: "00000000" };

    const here = countStatements();
    const first = await gw.request("POST", "/v1/otp/verify", { key: account.key, body: guess });
    here.restore();
    expect(first.body).toMatchObject({ verified: false, status: "pending", attempts_remaining: 4 });
    expect(here.names).toEqual(["otp-check-code"]);

    const elsewhere = countStatements();
    const second = await other.request("POST", "/v1/otp/verify", { key: account.key, body: guess });
    elsewhere.restore();
    expect(second.body).toMatchObject({ verified: false, status: "pending", attempts_remaining: 3 });
    expect(elsewhere.names).toEqual(["otp-find", "otp-check-code"]);
  });

  it("answers 404 to another account for an OTP the process remembers", async () => {
    const owner = await gw.createAccount();
    const stranger = await gw.createAccount();
    const sent = await gw.request("POST", "/v1/otp/send", {
      key: owner.key,
      body: { phone: "+14155550101" },
    });
    const response = await gw.request("POST", "/v1/otp/verify", {
      key: stranger.key,
      body: { otp_id: sent.body.otp_id, code: "000000" },
    });
    expectError(response, 404, "NOT_FOUND");
    // The owner's attempts were not touched.
    const check = await gw.request("GET", `/v1/otp/${sent.body.otp_id}`, { key: owner.key });
    expect(check.body.attempts_remaining).toBe(5);
  });
});
