import { sampleValue } from "@sms/metrics";
import { startTestGateway, type TestGateway } from "./harness";

let g: TestGateway;
beforeAll(async () => {
  g = await startTestGateway();
});
afterAll(() => g.stop());

const scrape = async () => {
  const response = await fetch(`${g.healthUrl}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
};

describe("gateway /metrics (real HTTP, PostgreSQL, Redis)", () => {
  it("times every request by route pattern and status, never by raw URL", async () => {
    const account = await g.createAccount({ credits: 100 });
    for (let i = 0; i < 3; i++) {
      const sent = await g.request("POST", "/v1/sms/send", {
        key: account.key,
        body: { to: "+14155550100", message: `metrics ${i}`, sender_id: "ACME" },
      });
      expect(sent.status).toBe(202);
    }
    const unknown = ["msg_01JAAAAAAAAAAAAAAAAAAAAAAA", "msg_01JBBBBBBBBBBBBBBBBBBBBBBB"];
    for (const id of unknown)
      expect((await g.request("GET", `/v1/sms/${id}`, { key: account.key })).status).toBe(404);
    expect((await g.request("GET", "/v1/account")).status).toBe(401);

    const text = await scrape();
    const send = { method: "POST", route: "/v1/sms/send", status_code: "202" };
    expect(sampleValue(text, "sms_http_request_duration_seconds_count", send)).toBe(3);
    expect(sampleValue(text, "sms_http_request_duration_seconds_bucket", { ...send, le: "+Inf" })).toBe(3);
    expect(sampleValue(text, "sms_http_request_duration_seconds_sum", send)).toBeGreaterThan(0);
    // Two different ids, one series: the label is the route's pattern.
    const byId = { method: "GET", route: "/v1/sms/:message_id", status_code: "404" };
    expect(sampleValue(text, "sms_http_request_duration_seconds_count", byId)).toBe(2);
    expect(text).not.toContain(unknown[0]);
    // Refused by authentication before any route matched.
    const refused = { method: "GET", route: "none", status_code: "401" };
    expect(sampleValue(text, "sms_http_request_duration_seconds_count", refused)).toBe(1);
  });

  it("counts rate-limit rejections where the 429 is produced", async () => {
    const account = await g.createAccount({ credits: 100, requestsPerSecond: 2 });
    const before = sampleValue(await scrape(), "sms_rate_limit_rejections_total", { source: "http" }) ?? 0;
    const statuses = await Promise.all(
      Array.from({ length: 6 }, () => g.request("GET", "/v1/account", { key: account.key })),
    ).then((responses) => responses.map((r) => r.status));
    const limited = statuses.filter((status) => status === 429).length;
    expect(limited).toBeGreaterThan(0);
    const text = await scrape();
    expect(
      sampleValue(text, "sms_rate_limit_rejections_total", { source: "http", reason: "RATE_LIMITED" }),
    ).toBe(before + limited);
    expect(
      sampleValue(text, "sms_http_request_duration_seconds_count", { route: "none", status_code: "429" }),
    ).toBeGreaterThanOrEqual(limited);
  });
});
