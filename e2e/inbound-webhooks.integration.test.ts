import { Webhook } from "standardwebhooks";
import { startDispatchWorld, type DispatchWorld } from "@sms/dispatcher/test/harness";
import { loadDlrIngestConfig } from "@sms/dlr-ingest";
import { startDlrIngest, type RunningDlrIngest } from "@sms/dlr-ingest";
import { createLogger } from "@sms/logger";
import { createSecretBox } from "@sms/secret-box";
import { waitFor } from "@sms/testing";
import { WebhookEndpoints } from "@sms/webhooks";
import { startReceiver, type Receiver } from "@sms/webhook-delivery/test/receiver";
import { startWebhookStage } from "./webhook-stage";

/**
 * Inbound for real: the carrier simulator delivers deliver_sm over SMPP to dlr-ingest's two
 * receiver binds → inbound_messages → outbox → relay → webhook-delivery → a local receiver.
 */
describe("inbound messages through the real pipeline", () => {
  let d: DispatchWorld;
  let dlr: RunningDlrIngest;
  let receiver: Receiver;
  let secret: string;
  const OURS = "+14155550199";
  const stops: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    d = await startDispatchWorld();
    // Two receiver binds: the simulator sends the parts round robin, so one message crosses binds.
    await d.db.prisma.carrier.update({ where: { id: "sim" }, data: { receiverBinds: 2 } });
    await d.db.pool.query("INSERT INTO inbound_numbers (number, account_id) VALUES ($1, $2)", [
      OURS,
      d.accountId,
    ]);
    receiver = await startReceiver();
    const key = d.world.env.SECRET_ENCRYPTION_KEY!;
    const endpoints = new WebhookEndpoints(d.db.prisma, createSecretBox(key), {
      allowLoopback: true,
      allowHttp: true,
    });
    secret = (await endpoints.register(d.accountId, receiver.url)).secret!;
    const logger = createLogger("inbound-pipeline-test", "error");
    dlr = await startDlrIngest(
      loadDlrIngestConfig({
        ...d.world.env,
        PORT: "0",
        HOST: "127.0.0.1",
        CARRIER_REFRESH_MS: "200",
        INBOUND_PART_TIMEOUT_MS: "1000",
        INBOUND_SWEEP_INTERVAL_MS: "200",
      }),
      logger,
    );
    stops.push(() => dlr.stop());
    await waitFor(() => dlr.binds.summary().some((s) => s.bound === 2), { what: "two receiver binds" });
    stops.push(await startWebhookStage(d, logger));
  }, 60_000);
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
    await receiver?.close();
    await d?.stop();
  });

  /** The simulator's control API, as a test or a person with curl uses it. */
  async function inject(body: Record<string, unknown>) {
    const response = await fetch(`http://127.0.0.1:${d.simulator.httpPort}/inbound`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  }

  async function rowsFrom(from: string) {
    const { rows } = await d.db.pool.query(
      `SELECT id, account_id, from_addr, to_addr, text, encoding, segments, flags
       FROM inbound_messages WHERE from_addr = $1 ORDER BY id`,
      [from],
    );
    return rows;
  }

  const webhooksOf = (id: string) => receiver.received.filter((h) => h.body.message_id === id);

  it("a 3-part Arabic message, parts out of order on two binds: one row, the exact text, one signed webhook", async () => {
    const text =
      "مرحبا! هذه رسالة طويلة من عميل يرد على تذكير الموعد. نعم، سأحضر غدا في الساعة الثالثة. شكرا جزيلا لكم على التذكير، وأتمنى لكم يوما سعيدا 🌙";
    const from = "+447700900301";
    const answer = await inject({ from, to: OURS, text, encoding: "ucs2", order: [3, 1, 2] });
    expect(answer).toEqual({ status: 200, body: expect.objectContaining({ parts: 3, acknowledged: 3 }) });
    // Acknowledged means committed: the row is there now.
    const rows = await rowsFrom(from);
    expect(rows).toEqual([
      expect.objectContaining({
        account_id: d.accountId,
        to_addr: OURS,
        text,
        encoding: "UCS-2",
        segments: 3,
        flags: [],
      }),
    ]);
    const [hook] = await waitFor(
      () => (webhooksOf(rows[0].id).length > 0 ? webhooksOf(rows[0].id) : undefined),
      {
        what: "the message.received webhook",
        timeoutMs: 20_000,
      },
    );
    new Webhook(secret).verify(hook!.raw, hook!.headers);
    expect(hook!.body).toEqual({
      event: "message.received",
      message_id: rows[0].id,
      timestamp: expect.any(String),
      data: { from, to: OURS, text, encoding: "UCS-2", segments: 3, received_at: expect.any(String) },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(webhooksOf(rows[0].id)).toHaveLength(1);
  }, 30_000);

  it("the same part twice (a carrier's redelivery) makes one message", async () => {
    const from = "+447700900302";
    const answer = await inject({ from, to: OURS, text: "Twice told tale ".repeat(12), order: [2, 1, 2, 1] });
    expect(answer.body).toMatchObject({ parts: 4, acknowledged: 4 });
    const rows = await rowsFrom(from);
    expect(rows.map((r) => [r.text, r.segments])).toEqual([["Twice told tale ".repeat(12), 2]]);
  });

  it("a number nobody owns: stored unassigned, no webhook", async () => {
    const from = "+447700900303";
    expect((await inject({ from, to: "+19995550123", text: "anyone there?" })).body.acknowledged).toBe(1);
    const rows = await rowsFrom(from);
    expect(rows).toEqual([
      expect.objectContaining({ account_id: null, to_addr: "+19995550123", text: "anyone there?" }),
    ]);
    // No account, so no event: nothing in the outbox for it, nothing POSTed.
    const events = await d.db.pool.query("SELECT 1 FROM outbox_events WHERE message_id = $1", [rows[0].id]);
    expect(events.rowCount).toBe(0);
    expect(webhooksOf(rows[0].id)).toEqual([]);
    const metrics = await (await fetch(`http://127.0.0.1:${dlr.port}/metrics`)).text();
    expect(metrics).toMatch(/sms_inbound_total\{outcome="unassigned"\} [1-9]/);
  });

  it("bad input is acknowledged and kept as a clear record, never a crash", async () => {
    const cases: Array<[Record<string, unknown>, string, string, string[]]> = [
      [{ from: "+447700900310", hex: "0102", udh_hex: "09000301" }, "090003010102", "hex", ["malformed_udh"]],
      [
        { from: "+447700900311", text: "lost", udh_hex: "050003070203" },
        "lost",
        "GSM-7",
        ["invalid_part_number"],
      ],
      [{ from: "+447700900312", hex: "cafe", data_coding: 4 }, "cafe", "hex", ["undecodable"]],
      [{ from: "+447700900313", text: "" }, "", "GSM-7", ["empty"]],
      [{ from: "ACME Bank", text: "Your card ending 1234" }, "Your card ending 1234", "GSM-7", []],
    ];
    for (const [body, text, encoding, flags] of cases) {
      const answer = await inject({ to: OURS, ...body });
      expect(answer.body).toMatchObject({ parts: 1, acknowledged: 1 });
      const rows = await rowsFrom(body.from as string);
      expect(rows).toEqual([expect.objectContaining({ account_id: d.accountId, encoding, flags })]);
      expect(rows[0].text).toBe(text);
    }
    // The binds are still up and still store messages.
    expect((await inject({ from: "+447700900314", to: OURS, text: "still here" })).body.acknowledged).toBe(1);
  });

  it("STOP from a handset puts it on the account's suppression list, START takes it off (dlr-ingest's default hook)", async () => {
    // A number the acceptance takes (a suppression is stored as every destination is: valid E.164).
    const from = "+14155550123";
    const listed = async () =>
      (
        await d.db.pool.query(
          "SELECT reply_number, source::text FROM suppressions WHERE account_id = $1 AND number = $2",
          [d.accountId, from],
        )
      ).rows;
    expect((await inject({ from, to: OURS, text: "Stop" })).body.acknowledged).toBe(1);
    expect(await listed()).toEqual([{ reply_number: OURS, source: "keyword" }]);
    expect((await inject({ from, to: OURS, text: "START" })).body.acknowledged).toBe(1);
    expect(await listed()).toEqual([]);
    // Both are still stored and delivered like any message.
    expect((await rowsFrom(from)).map((r) => r.text)).toEqual(["Stop", "START"]);
  });

  it("a group that never completes is stored as what arrived, flagged incomplete, after the timeout", async () => {
    const from = "+447700900320";
    // Part 2 of 3 never comes.
    expect((await inject({ from, to: OURS, text: "A".repeat(400), order: [3, 1] })).body.acknowledged).toBe(
      2,
    );
    expect(await rowsFrom(from)).toEqual([]);
    const rows = await waitFor(async () => ((await rowsFrom(from)).length > 0 ? rowsFrom(from) : undefined), {
      what: "the timed-out group stored",
      timeoutMs: 10_000,
    });
    expect(rows).toEqual([
      expect.objectContaining({ text: "A".repeat(153 + 94), segments: 2, flags: ["incomplete"] }),
    ]);
  }, 20_000);
});
