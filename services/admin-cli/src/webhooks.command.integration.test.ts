import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
let server: http.Server;
let url: string;
const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];

beforeAll(async () => {
  cli = await startCliHarness();
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await cli.close();
});

describe("admin webhook commands", () => {
  it("set: stores the URL, prints the secret once, and sends a signed test event that verifies", async () => {
    const account = await cli.createAccount();
    const set = await cli.json<{ secret: string; url: string; test: { outcome: string } }>(
      "webhook",
      "set",
      account,
      url,
    );
    expect(set.secret).toMatch(/^whsec_/);
    expect(set.test.outcome).toBe("success");
    const hook = received.at(-1)!;
    const event = new Webhook(set.secret).verify(hook.body, hook.headers as Record<string, string>) as {
      event: string;
    };
    expect(event.event).toBe("webhook.test");
    const show = await cli.json<{ url: string; enabled: boolean; secret?: string }>(
      "webhook",
      "show",
      account,
    );
    expect(show).toMatchObject({ url, enabled: true });
    expect(show.secret).toBeUndefined();
    expect((await cli.json<{ secret: string }>("webhook", "show", account, "--reveal")).secret).toBe(
      set.secret,
    );
  });

  it("rotate: a new secret, the old one still signing; disable and enable", async () => {
    const account = await cli.createAccount();
    const { secret: old } = await cli.json<{ secret: string }>("webhook", "set", account, url);
    const { secret: next } = await cli.json<{ secret: string }>("webhook", "rotate", account);
    expect(next).not.toBe(old);
    expect((await cli.run("webhook", "test", account)).code).toBe(0);
    const hook = received.at(-1)!;
    for (const secret of [old, next])
      new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>);
    expect((await cli.run("webhook", "disable", account)).code).toBe(0);
    expect(await cli.json("webhook", "show", account)).toMatchObject({
      enabled: false,
      disabled_reason: "operator",
    });
    expect((await cli.run("webhook", "enable", account)).code).toBe(0);
    expect(await cli.json("webhook", "show", account)).toMatchObject({ enabled: true });
  });

  it("refuses bad URLs and unknown accounts with one clear line", async () => {
    const account = await cli.createAccount();
    const credentials = await cli.run("webhook", "set", account, "https://user:pw@example.com/x");
    expect(credentials.code).toBe(1);
    expect(credentials.stderr).toMatch(/^error: URL not allowed: credentials/);
    const metadata = await cli.run("webhook", "set", account, "http://169.254.169.254/latest");
    expect(metadata.stderr).toMatch(/blocked address/);
    expect((await cli.run("webhook", "show", "acc_01ARZ3NDEKTSV4RRFFQ69G5FAV")).code).toBe(1);
    expect((await cli.run("webhook", "replay")).code).toBe(2);
    expect((await cli.run("webhook", "attempts", "nope")).code).toBe(2);
  });

  it("events: set with --events, shown resolved, changed alone with `webhook events`, back to all", async () => {
    const account = await cli.createAccount();
    const set = await cli.json<{ event_types: string[]; all_events: boolean; test: { outcome: string } }>(
      "webhook",
      "set",
      account,
      url,
      "--events",
      "message.failed,message.delivered",
    );
    expect(set).toMatchObject({ event_types: ["message.delivered", "message.failed"], all_events: false });
    // webhook.test is always sent, whatever the endpoint subscribed to.
    expect(set.test.outcome).toBe("success");
    const stored = async () =>
      (await cli.db.pool.query("SELECT event_types FROM webhook_endpoints WHERE account_id = $1", [account]))
        .rows[0].event_types;
    expect(await stored()).toEqual(["message.delivered", "message.failed"]);
    expect((await cli.run("webhook", "show", account)).stdout).toContain(
      "events:         message.delivered, message.failed",
    );
    // A new URL without --events keeps the subscription.
    await cli.json("webhook", "set", account, url.replace("/hooks", "/other"));
    expect(await stored()).toEqual(["message.delivered", "message.failed"]);

    expect(await cli.json("webhook", "events", account, "message.received,message.sent")).toMatchObject({
      event_types: ["message.sent", "message.received"],
      all_events: false,
    });
    expect(await cli.json("webhook", "events", account, "all")).toMatchObject({
      event_types: [
        "message.queued",
        "message.sent",
        "message.delivered",
        "message.failed",
        "message.received",
      ],
      all_events: true,
    });
    expect(await stored()).toBeNull();
    expect((await cli.run("webhook", "show", account)).stdout).toContain("events:         all");
  });

  it("refuses unknown and empty event lists naming the bad value and the allowed ones, and changes nothing", async () => {
    const account = await cli.createAccount();
    const unknown = await cli.run(
      "webhook",
      "set",
      account,
      url,
      "--events",
      "message.delivered,message.bounced",
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      "option '--events <list>' argument 'message.delivered,message.bounced' is invalid",
    );
    expect(unknown.stderr).toContain('unknown event type "message.bounced"');
    expect(unknown.stderr).toContain(
      "allowed: message.queued, message.sent, message.delivered, message.failed, message.received",
    );
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
    expect((await cli.run("webhook", "show", account)).code).toBe(1);

    await cli.json("webhook", "set", account, url, "--events", "message.failed");
    const empty = await cli.run("webhook", "events", account, ",");
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/at least one event type/);
    const typo = await cli.run("webhook", "events", account, "delivered");
    expect(typo.stderr).toContain('unknown event type "delivered"');
    expect(await cli.json("webhook", "show", account)).toMatchObject({ event_types: ["message.failed"] });
    expect((await cli.run("webhook", "events", "acc_01ARZ3NDEKTSV4RRFFQ69G5FAV", "all")).code).toBe(1);
  });

  it("attempts: the failures from webhook_attempts, then the success kept on the delivery, in order", async () => {
    const account = await cli.createAccount();
    const eventId = "evt_01ARZ3NDEKTSV4RRFFQ69G5FB0";
    await cli.db.pool.query(
      `INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, payload, status, attempts,
                                       last_attempt_at, last_status_code, succeeded_at, success_on_row)
       VALUES ($1, $2, 'msg_01ARZ3NDEKTSV4RRFFQ69G5FB0', 'message.sent', '{}', 'succeeded', 2,
               '2026-11-24T10:00:05.000Z', 204, '2026-11-24T10:00:05.031Z', true)`,
      [eventId, account],
    );
    await cli.db.pool.query(
      `INSERT INTO webhook_attempts (event_id, account_id, attempt, url, status_code, latency_ms, response_body, error, started_at)
       VALUES ($1, $2, 1, 'https://hooks.example.com/x', 503, 12, 'maintenance', NULL, '2026-11-24T10:00:00.000Z')`,
      [eventId, account],
    );
    expect(await cli.json("webhook", "attempts", eventId)).toEqual([
      {
        attempt: 1,
        started_at: "2026-11-24T10:00:00.000Z",
        status_code: 503,
        latency_ms: 12,
        error: null,
        response_body: "maintenance",
      },
      {
        attempt: 2,
        started_at: "2026-11-24T10:00:05.000Z",
        status_code: 204,
        latency_ms: 31,
        error: null,
        response_body: null,
      },
    ]);
    const table = await cli.run("webhook", "attempts", eventId);
    expect(table.stdout.trim().split("\n")).toHaveLength(3);
    expect(table.stdout).toMatch(/^2\s+2026-11-24T10:00:05.000Z\s+204\s+31\s+-\s*$/m);
  });

  it("replay: failed deliveries go back to pending and onto the queue", async () => {
    const account = await cli.createAccount();
    await cli.json("webhook", "set", account, url);
    await cli.db.pool.query(
      `INSERT INTO webhook_deliveries (event_id, account_id, message_id, event_type, payload, status, attempts)
       VALUES ('evt_01ARZ3NDEKTSV4RRFFQ69G5FAV', $1, 'msg_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'message.sent', '{}', 'failed', 10),
              ('evt_01ARZ3NDEKTSV4RRFFQ69G5FAW', $1, 'msg_01ARZ3NDEKTSV4RRFFQ69G5FAW', 'message.sent', '{}', 'succeeded', 1)`,
      [account],
    );
    const replay = await cli.json<{ replayed: number }>(
      "webhook",
      "replay",
      "--account",
      account,
      "--from",
      "2020-01-01T00:00:00Z",
    );
    expect(replay.replayed).toBe(1);
    const { rows } = await cli.db.pool.query(
      "SELECT event_id, status::text FROM webhook_deliveries WHERE account_id = $1 ORDER BY event_id",
      [account],
    );
    expect(rows.map((r) => r.status)).toEqual(["pending", "succeeded"]);
    expect(
      (await cli.json<{ replayed: number }>("webhook", "replay", "--event", "evt_01ARZ3NDEKTSV4RRFFQ69G5FAV"))
        .replayed,
    ).toBe(0);
  });
});
