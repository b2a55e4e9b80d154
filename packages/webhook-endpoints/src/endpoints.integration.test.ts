import crypto from "node:crypto";
import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { createSecretBox } from "@sms/secret-box";
import { UrlNotAllowedError } from "@sms/ssrf-guard";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { WebhookEndpointError, WebhookEndpoints } from "./index";

describe("webhook endpoint settings (real PostgreSQL)", () => {
  let world: TestWorld;
  let db: Database;
  let endpoints: WebhookEndpoints;
  const box = createSecretBox(crypto.randomBytes(32).toString("base64"));

  beforeAll(async () => {
    world = await createTestWorld();
    db = createDatabase(world.databaseUrl, { poolSize: 2 });
    endpoints = new WebhookEndpoints(db.prisma, box, { allowLoopback: true, allowHttp: true });
  });
  afterAll(async () => {
    await db.close();
    await world.destroy();
  });

  const account = async () => {
    const id = newId("acc");
    await db.prisma.account.create({ data: { id, name: "t" } });
    return id;
  };

  it("creates a whsec_ secret once, stores it sealed, and keeps it when the URL changes", async () => {
    const id = await account();
    const first = await endpoints.register(id, "http://127.0.0.1:9/hooks");
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const row = await db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { accountId: id } });
    expect(row.secretSealed).not.toContain(first.secret!.slice(6));
    const second = await endpoints.register(id, "http://127.0.0.1:10/other");
    expect(second.secret).toBeNull();
    expect(second.endpoint.url).toBe("http://127.0.0.1:10/other");
    expect((await endpoints.reveal(id)).current).toBe(first.secret);
  });

  it("rotation: the old secret signs beside the new one for 24 h, then not", async () => {
    const id = await account();
    const { secret: original } = await endpoints.register(id, "http://127.0.0.1:9/");
    const now = new Date();
    const { secret: next, previousExpiresAt } = await endpoints.rotate(id, now);
    expect(previousExpiresAt.getTime() - now.getTime()).toBe(24 * 3600 * 1000);
    expect((await endpoints.loadTarget(id, now))!.secrets).toEqual([next, original]);
    const later = new Date(now.getTime() + 24 * 3600 * 1000 + 1);
    expect((await endpoints.loadTarget(id, later))!.secrets).toEqual([next]);
  });

  it("refuses bad URLs with the reason, and writes nothing", async () => {
    const id = await account();
    const strict = new WebhookEndpoints(db.prisma, box, { allowLoopback: false, allowHttp: false });
    for (const [url, reason] of [
      ["ftp://example.com/x", /scheme/],
      ["https://user:pw@example.com/x", /credentials/],
      ["https://10.0.0.1/x", /blocked/],
      ["https://[::ffff:192.168.0.1]/x", /blocked/],
      ["https://localhost/x", /resolves to a blocked address 127\.0\.0\.1|::1/],
      ["not a url", /valid absolute URL/],
      [`https://example.com/${"a".repeat(3000)}`, /longer than/],
    ] as const) {
      await expect(strict.register(id, url)).rejects.toThrow(UrlNotAllowedError);
      await expect(strict.register(id, url)).rejects.toThrow(reason);
    }
    expect(await db.prisma.webhookEndpoint.count({ where: { accountId: id } })).toBe(0);
  });

  it("disable once, enable clears the failure state; unknown ids are clear errors", async () => {
    const id = await account();
    await endpoints.register(id, "http://127.0.0.1:9/");
    expect(await endpoints.disable(id, "gone")).toBe(true);
    expect(await endpoints.disable(id, "failing")).toBe(false);
    expect((await endpoints.get(id))!).toMatchObject({ enabled: false, disabledReason: "gone" });
    expect(await endpoints.enable(id)).toMatchObject({
      enabled: true,
      disabledReason: null,
      failingSince: null,
    });
    await expect(endpoints.rotate("acc_missing")).rejects.toThrow(WebhookEndpointError);
    const bare = await account();
    await expect(endpoints.reveal(bare)).rejects.toMatchObject({ code: "NO_ENDPOINT" });
  });
});

describe("a secret sealed under another deployment key", () => {
  it("cannot be used, and registering the URL again makes a new one", async () => {
    const world = await createTestWorld();
    const db = createDatabase(world.databaseUrl, { poolSize: 2 });
    try {
      const policy = { allowLoopback: true, allowHttp: true };
      const before = new WebhookEndpoints(
        db.prisma,
        createSecretBox(crypto.randomBytes(32).toString("base64")),
        policy,
      );
      const after = new WebhookEndpoints(
        db.prisma,
        createSecretBox(crypto.randomBytes(32).toString("base64")),
        policy,
      );
      const id = newId("acc");
      await db.prisma.account.create({ data: { id, name: "t" } });
      const { secret: lost } = await before.register(id, "http://127.0.0.1:9/hooks");
      await expect(after.reveal(id)).rejects.toThrow(/does not open/);
      const { secret } = await after.register(id, "http://127.0.0.1:9/hooks");
      expect(secret).toMatch(/^whsec_/);
      expect(secret).not.toBe(lost);
      expect((await after.loadTarget(id))!.secrets).toEqual([secret]);
    } finally {
      await db.close();
      await world.destroy();
    }
  });
});
