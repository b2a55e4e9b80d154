import { CommandStatus, parseReceipt, type DeliverSm } from "@sms/smpp";
import { waitFor } from "@sms/testing";
import { control, Harness, segment } from "../test/harness";

/** "Code @ $5": GSM-7 unpacked, where @ is 0x00 and $ is 0x02, unlike ASCII. */
const GSM7_CODE = Buffer.from([0x43, 0x6f, 0x64, 0x65, 0x20, 0x00, 0x20, 0x02, 0x35]);

describe("carrier simulator control API", () => {
  const harness = new Harness();
  afterEach(() => harness.closeAll());

  it("returns what it received for a number, with the text decoded per data_coding and the raw bytes", async () => {
    const simulator = await harness.simulator();
    const client = await harness.client(simulator);
    const to = "+447700900123";
    await client.submit(segment(to, "", { short_message: GSM7_CODE }));
    await client.submit(
      segment(to, "", { data_coding: 8, short_message: Buffer.from("سلام 😀", "utf16le").swap16() }),
    );
    const udh = Buffer.from([0x05, 0x00, 0x03, 0x7f, 0x02, 0x02]);
    await client.submit(
      segment(to, "", { esm_class: 0x40, short_message: Buffer.concat([udh, Buffer.from("part two")]) }),
    );
    await client.submit(segment("+447700900999", "someone else"));

    const { status, json } = await control(simulator, "GET", `/messages?to=${encodeURIComponent(to)}`);
    expect(status).toBe(200);
    expect((json as { messages: unknown[] }).messages).toEqual([
      expect.objectContaining({
        to,
        from: "ACME",
        systemId: "acme",
        dataCoding: 0,
        text: "Code @ $5",
        rawHex: GSM7_CODE.toString("hex"),
      }),
      expect.objectContaining({
        dataCoding: 8,
        text: "سلام 😀",
        messageId: expect.stringMatching(/^[0-9a-f]{16}$/),
      }),
      expect.objectContaining({ text: "part two", segment: { reference: 0x7f, total: 2, index: 2 } }),
    ]);
    expect((await control(simulator, "GET", "/messages?to=447700900999&limit=5")).json).toEqual({
      messages: [expect.objectContaining({ text: "someone else" })],
    });
    expect((await control(simulator, "DELETE", "/messages")).status).toBe(204);
    expect((await control(simulator, "GET", "/messages")).json).toEqual({ messages: [] });
  });

  it("changes the outcome mix, latency and throttle at run time", async () => {
    const simulator = await harness.simulator();
    const receipts: DeliverSm[] = [];
    const client = await harness.client(simulator, { onDeliverSm: (pdu) => void receipts.push(pdu) });
    const change = { outcomes: { delivered: 0, expired: 1 }, submitLatencyMs: 1, throttlePerSecond: 1000 };
    const { status, json } = await control(simulator, "POST", "/control", change);
    expect(status).toBe(200);
    expect(json).toMatchObject({
      submitLatencyMs: 1,
      throttlePerSecond: 1000,
      outcomes: { delivered: 0, undeliverable: 0, rejected: 0, expired: 1 },
    });
    expect((await control(simulator, "GET", "/control")).json).toEqual(json);
    expect((await client.submit(segment("+447700900123"))).command_status).toBe(CommandStatus.ESME_ROK);
    await waitFor(() => receipts.length === 1, { what: "receipt" });
    expect(parseReceipt(receipts[0]!)?.state).toBe("expired");
  });

  it("refuses an invalid control update and answers health, readiness and stats", async () => {
    const simulator = await harness.simulator();
    expect((await control(simulator, "POST", "/control", { submitLatencyMs: -1 })).status).toBe(400);
    expect((await control(simulator, "POST", "/control", { noSuchSetting: true })).status).toBe(400);
    expect(await control(simulator, "GET", "/healthz")).toEqual({ status: 200, json: { status: "ok" } });
    expect(await control(simulator, "GET", "/readyz")).toEqual({ status: 200, json: { status: "ready" } });
    expect((await control(simulator, "GET", "/stats")).json).toMatchObject({
      submits: { received: 0 },
      receipts: { pending: 0 },
      binds: [],
    });
    expect((await control(simulator, "GET", "/nowhere")).status).toBe(404);
  });

  it("delivers a batch of inbound messages at once and counts what the binds acknowledged", async () => {
    const simulator = await harness.simulator();
    const body = {
      messages: Array.from({ length: 300 }, (_, i) => ({
        from: "+447700900123",
        to: "+14155550100",
        text: `m${i}`,
      })),
    };
    expect((await control(simulator, "POST", "/inbound/batch", body)).status).toBe(409);
    const received: DeliverSm[] = [];
    await harness.client(simulator, { onDeliverSm: (pdu) => void received.push(pdu) });
    const { status, json } = await control(simulator, "POST", "/inbound/batch", body);
    expect(status).toBe(200);
    expect(json).toEqual({ messages: 300, parts: 300, acknowledged: 300, refused: 0 });
    expect(new Set(received.map((pdu) => pdu.short_message?.toString())).size).toBe(300);
    expect((await control(simulator, "POST", "/inbound/batch", { messages: [] })).status).toBe(400);
  });
});
