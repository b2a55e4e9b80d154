import crypto from "node:crypto";
import { createDatabase, type Database } from "@sms/db";
import { newId } from "@sms/ids";
import { createSecretBox } from "@sms/secret-box";
import { UrlNotAllowedError } from "@sms/ssrf-guard";
import { createTestWorld, type TestWorld } from "@sms/testing";
import { EventTypesError } from "../events";
import { loadDeliveryTarget, WebhookEndpointError, WebhookEndpoints } from "./index";

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

  it("the worker's delivery target (one pg statement) is the one loadTarget reads through Prisma", async () => {
    const id = await account();
    expect(await loadDeliveryTarget(db.pool, box, id)).toBeNull();
    const { secret: original } = await endpoints.register(id, "http://127.0.0.1:9/");
    const now = new Date();
    const { secret: next } = await endpoints.rotate(id, now);
    await db.pool.query("UPDATE webhook_endpoints SET failing_since = $2 WHERE account_id = $1", [id, now]);
    await endpoints.disable(id, "operator");
    const later = new Date(now.getTime() + 24 * 3600 * 1000 + 1);
    for (const at of [now, later]) {
      const target = await loadDeliveryTarget(db.pool, box, id, at);
      expect(target).toEqual(await endpoints.loadTarget(id, at));
      expect(target!.secrets).toEqual(at === now ? [next, original] : [next]);
    }
    expect(await loadDeliveryTarget(db.pool, box, id, now)).toMatchObject({
      enabled: false,
      failingSince: now,
    });
  });

  it("refuses bad URLs with the reason, and writes nothing", async () => {
    const id = await account();
    const strict = new WebhookEndpoints(db.prisma, box, { allowLoopback: false, allowHttp: false });
    for (const [url, reason] of [
      ["ftp://example.com/x", /scheme/],
      ["https://user:pw@example.com/x", /credentials/],
      ["https://10.0.0.1/x", /blocked/],
      ["https://[::ffff:192.168.0.1]/x", /blocked/],
      ["https://localhost/x", /resolves to a blocked address/],
      ["not a url", /valid absolute URL/],
      [`https://example.com/${"a".repeat(3000)}`, /longer than/],
    ] as const) {
      await expect(strict.register(id, url)).rejects.toThrow(UrlNotAllowedError);
      await expect(strict.register(id, url)).rejects.toThrow(reason);
    }
    expect(await db.prisma.webhookEndpoint.count({ where: { accountId: id } })).toBe(0);
  });

  it("never echoes the address a refused host name resolves to", async () => {
    const id = await account();
    const strict = new WebhookEndpoints(db.prisma, box, { allowLoopback: false, allowHttp: false });
    const refusal = await strict.register(id, "https://localhost/x").catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(UrlNotAllowedError);
    expect((refusal as Error).message).not.toMatch(/127\.0\.0\.1|::1|loopback/);
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

  it("event types: every event by default (NULL), a chosen list, back to all; the URL change keeps them", async () => {
    const id = await account();
    const stored = async () =>
      (await db.pool.query("SELECT event_types FROM webhook_endpoints WHERE account_id = $1", [id])).rows[0]
        .event_types;
    const { endpoint } = await endpoints.register(id, "http://127.0.0.1:9/");
    expect(endpoint.eventTypes).toBeNull();
    expect(await stored()).toBeNull();
    const chosen = await endpoints.setEventTypes(id, [
      "message.failed",
      "message.delivered",
      "message.failed",
    ]);
    expect(chosen.eventTypes).toEqual(["message.delivered", "message.failed"]);
    expect(await stored()).toEqual(["message.delivered", "message.failed"]);
    const moved = await endpoints.register(id, "http://127.0.0.1:10/");
    expect(moved.endpoint.eventTypes).toEqual(["message.delivered", "message.failed"]);
    expect((await endpoints.setEventTypes(id, null)).eventTypes).toBeNull();
    expect(await stored()).toBeNull();
  });

  it("a first registration can choose its event types", async () => {
    const id = await account();
    const { endpoint, secret } = await endpoints.register(id, "http://127.0.0.1:9/", {
      eventTypes: ["message.received"],
    });
    expect(secret).toMatch(/^whsec_/);
    expect(endpoint.eventTypes).toEqual(["message.received"]);
    expect((await endpoints.get(id))!.eventTypes).toEqual(["message.received"]);
  });

  it("refuses unknown and empty event type lists, and writes nothing", async () => {
    const id = await account();
    await expect(
      endpoints.register(id, "http://127.0.0.1:9/", { eventTypes: ["message.bounced"] }),
    ).rejects.toThrow(EventTypesError);
    expect(await endpoints.get(id)).toBeNull();
    await endpoints.register(id, "http://127.0.0.1:9/", { eventTypes: ["message.sent"] });
    await expect(endpoints.setEventTypes(id, ["message.sent", "sms.sent"])).rejects.toThrow(
      /unknown event type "sms.sent"; allowed: message.queued, message.sent, message.delivered, message.failed, message.received/,
    );
    await expect(endpoints.setEventTypes(id, [])).rejects.toThrow(/at least one event type/);
    expect((await endpoints.get(id))!.eventTypes).toEqual(["message.sent"]);
    // The database refuses an empty list too: an endpoint that wants nothing is disabled instead.
    await expect(
      db.pool.query("UPDATE webhook_endpoints SET event_types = '{}' WHERE account_id = $1", [id]),
    ).rejects.toThrow(/webhook_endpoints_event_types_not_empty/);
    await expect(endpoints.setEventTypes(newId("acc"), null)).rejects.toThrow(WebhookEndpointError);
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
