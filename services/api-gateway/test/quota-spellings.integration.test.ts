import { startTestGateway, type TestGateway } from "./harness";

/**
 * The daily quota is counted where messages are accepted, not looked up by URL: no spelling
 * of a send URL (case, trailing slash) may reach the handler uncounted. Routing is strict, so
 * those spellings are 404s; the exact URLs are refused once they would exceed the quota.
 */
describe("daily quota, whatever the URL's spelling", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway?.stop());
  const messageCount = (accountId: string) => gateway.db.prisma.message.count({ where: { accountId } });

  const item = { to: "+14155550100", message: "quota" };
  const bulk = { sender_id: "ACME", messages: Array.from({ length: 100 }, () => item) };
  const single = { ...item, sender_id: "ACME" };
  const otp = { phone: "+14155550100" };

  const spellings: Array<[string, object]> = [
    ["/v1/sms/bulk", bulk],
    ["/v1/sms/bulk/", bulk],
    ["/V1/SMS/BULK", bulk],
    ["/v1/SMS/bulk", bulk],
    ["/V1/SMS/BULK/", bulk],
  ];

  it.each(spellings)("POST %s with 100 items under a quota of 5 stores nothing", async (path, body) => {
    const account = await gateway.createAccount({ dailyQuota: 5, credits: 10_000 });
    const response = await gateway.request("POST", path, { key: account.key, body });
    expect([404, 429]).toContain(response.status);
    if (response.status === 429) expect(response.body.error.code).toBe("QUOTA_EXCEEDED");
    expect(await messageCount(account.accountId)).toBe(0);
  });

  it("counts every single send and OTP, whatever the spelling, and refuses the sixth", async () => {
    const account = await gateway.createAccount({
      dailyQuota: 5,
      credits: 10_000,
      permissions: ["sms:send", "otp:send"],
    });
    const tries: Array<[string, object]> = [
      ["/v1/sms/send", single],
      ["/v1/sms/send/", single],
      ["/V1/SMS/SEND", single],
      ["/v1/otp/send", otp],
      ["/v1/otp/send/", otp],
      ["/V1/OTP/SEND", { phone: "+14155550101" }],
      ["/v1/sms/send", single],
      ["/v1/sms/send", single],
      ["/v1/otp/send", { phone: "+14155550102" }],
      ["/v1/sms/send", single],
      ["/v1/sms/send", single],
    ];
    const statuses: number[] = [];
    for (const [path, body] of tries)
      statuses.push((await gateway.request("POST", path, { key: account.key, body })).status);
    expect(await messageCount(account.accountId)).toBe(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    expect(statuses.filter((s) => s === 404)).toHaveLength(4);
  });
});
