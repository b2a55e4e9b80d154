import { expectError, startTestGateway, type TestGateway } from "./harness";

describe("authentication and permissions", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw.stop());

  it.each([
    ["no header", undefined],
    ["a malformed key", "Bearer not-a-key"],
    ["an unknown well-formed key", `Bearer sk_live_${"A".repeat(43)}`],
    ["a Basic header", "Basic dXNlcjpwYXNz"],
  ])("answers 401 UNAUTHORIZED for %s", async (_, authorization) => {
    const headers: Record<string, string> = authorization ? { authorization } : {};
    expectError(await gw.request("GET", "/v1/account", { headers }), 401, "UNAUTHORIZED");
  });

  it("answers 401 for a revoked key", async () => {
    const account = await gw.createAccount();
    expect((await gw.request("GET", "/v1/account", { key: account.key })).status).toBe(200);
    await gw.db.prisma.apiKey.update({ where: { id: account.keyId }, data: { revokedAt: new Date() } });
    expectError(await gw.request("GET", "/v1/account", { key: account.key }), 401, "UNAUTHORIZED");
  });

  it("answers 403 FORBIDDEN for a key without the permission, and for a suspended account", async () => {
    const readOnly = await gw.createAccount({ permissions: ["sms:read"] });
    expectError(
      await gw.request("POST", "/v1/sms/send", {
        key: readOnly.key,
        body: { to: "+14155550100", message: "x", sender_id: "ACME" },
      }),
      403,
      "FORBIDDEN",
    );
    expectError(await gw.request("GET", "/v1/account", { key: readOnly.key }), 403, "FORBIDDEN");
    expect((await gw.request("GET", "/v1/sms", { key: readOnly.key })).status).toBe(200);
    const suspended = await gw.createAccount();
    await gw.db.prisma.account.update({ where: { id: suspended.accountId }, data: { status: "suspended" } });
    expectError(await gw.request("GET", "/v1/sms", { key: suspended.key }), 403, "FORBIDDEN");
  });

  it("records last_used_at of a key", async () => {
    const account = await gw.createAccount();
    await gw.request("GET", "/v1/account", { key: account.key });
    const deadline = Date.now() + 5000;
    let key = await gw.db.prisma.apiKey.findUniqueOrThrow({ where: { id: account.keyId } });
    while (!key.lastUsedAt && Date.now() < deadline)
      key = await gw.db.prisma.apiKey.findUniqueOrThrow({ where: { id: account.keyId } });
    expect(key.lastUsedAt).toBeInstanceOf(Date);
  });

  it("answers 404 NOT_FOUND in the documented shape for an unknown endpoint", async () => {
    const account = await gw.createAccount();
    expectError(await gw.request("GET", "/v1/nothing-here", { key: account.key }), 404, "NOT_FOUND");
  });
});

describe("health and docs", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw.stop());

  it("serves /healthz without a key; /readyz and /metrics only on the internal health port", async () => {
    expect((await gw.request("GET", "/healthz")).status).toBe(200);
    // On the public port they are API paths like any other: a key is asked for.
    expect((await gw.request("GET", "/readyz")).status).toBe(401);
    expect((await gw.request("GET", "/metrics")).status).toBe(401);
    const ready = await fetch(`${gw.healthUrl}/readyz`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({
      status: 200,
      body: { status: "ready", checks: { postgres: "ok", redis: "ok" } },
    });
    const metrics = await fetch(`${gw.healthUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain("# TYPE");
  });

  it("serves an OpenAPI 3.1 document with every endpoint, and the docs page", async () => {
    const { status, body } = await gw.request("GET", "/openapi.json");
    expect(status).toBe(200);
    expect(body.openapi).toBe("3.1.0");
    expect(Object.keys(body.paths).sort()).toEqual([
      "/v1/account",
      "/v1/batches/{batch_id}",
      "/v1/inbound",
      "/v1/inbound/{inbound_id}",
      "/v1/otp/send",
      "/v1/otp/verify",
      "/v1/otp/{otp_id}",
      "/v1/sms",
      "/v1/sms/bulk",
      "/v1/sms/export",
      "/v1/sms/send",
      "/v1/sms/{message_id}",
      "/v1/sms/{message_id}/cancel",
      "/v1/suppressions",
      "/v1/suppressions/{number}",
    ]);
    expect(body.components.schemas.SendSmsRequest.required.sort()).toEqual(["message", "sender_id", "to"]);
    const page = await fetch(`${gw.url}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("swagger-ui-bundle.js");
    // The body is read: a response left unread keeps its socket open after the file ends.
    const asset = await fetch(`${gw.url}/docs/assets/swagger-ui-bundle.js`);
    expect(asset.status).toBe(200);
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });
});
