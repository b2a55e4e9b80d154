import { decodeShortMessage, parseUdh } from "@sms/sms-encoding";
import { waitFor } from "@sms/testing";
import { closedPort, startDispatchWorld, type DispatchWorld } from "./harness";

describe("dispatcher against the carrier simulator (real SMPP over TCP)", () => {
  let w: DispatchWorld;
  beforeAll(async () => {
    w = await startDispatchWorld();
  });
  afterAll(() => w.stop());

  const received = (to: string) => w.simulator.messages({ to: to.replace(/^\+/, "") });

  it("submits a single GSM message with data_coding 0 and marks it sent", async () => {
    const message = await w.send("+14155551001", "Hello @ world €");
    expect(await w.waitForStatus(message.id, ["sent", "delivered"])).toBeDefined();
    const got = received("+14155551001");
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ dataCoding: 0, text: "Hello @ world €" });
    const segments = await w.db.prisma.messageSegment.findMany({ where: { messageId: message.id } });
    expect(segments).toEqual([
      expect.objectContaining({
        seq: 1,
        status: expect.stringMatching(/submitted|delivered/),
        carrierId: "sim",
        attempts: 1,
      }),
    ]);
  });

  it("splits a 3-segment GSM message into UDH parts with one reference that re-join to the text", async () => {
    const text = "The quick brown fox jumps over the lazy dog. ".repeat(8).slice(0, 400);
    const message = await w.send("+14155551002", text);
    await w.waitForStatus(message.id, ["sent", "delivered"]);
    const parts = received("+14155551002");
    expect(parts).toHaveLength(3);
    const headers = parts.map((p) => parseUdh(Buffer.from(p.rawHex, "hex"))!);
    expect(new Set(headers.map((h) => h.reference)).size).toBe(1);
    expect(headers.map((h) => h.seq).sort()).toEqual([1, 2, 3]);
    const ordered = parts.map((p, i) => ({ p, h: headers[i]! })).sort((a, b) => a.h.seq - b.h.seq);
    const joined = ordered
      .map(({ p, h }) => decodeShortMessage(Buffer.from(p.rawHex, "hex").subarray(h.headerLength), 0))
      .join("");
    expect(joined).toBe(text);
  });

  it("sends multi-part Arabic and emoji as UCS-2", async () => {
    const arabic = "مرحبا بكم في منصة الرسائل القصيرة. ".repeat(5);
    const m1 = await w.send("+14155551003", arabic);
    const m2 = await w.send("+14155551004", "Party 🎉🎉 time 👍");
    await w.waitForStatus(m1.id, ["sent", "delivered"]);
    await w.waitForStatus(m2.id, ["sent", "delivered"]);
    const arabicParts = received("+14155551003");
    expect(arabicParts.length).toBe(m1.segments);
    expect(arabicParts.every((p) => p.dataCoding === 8)).toBe(true);
    expect(received("+14155551004")).toEqual([
      expect.objectContaining({ dataCoding: 8, text: "Party 🎉🎉 time 👍" }),
    ]);
  });

  it("backs off on ESME_RTHROTTLED and still sends", async () => {
    const message = await w.send("+14155550005", "throttled first");
    await w.waitForStatus(message.id, ["sent", "delivered"]);
    const segment = await w.db.prisma.messageSegment.findFirstOrThrow({ where: { messageId: message.id } });
    expect(segment.attempts).toBeGreaterThanOrEqual(3);
  });

  it("fails a message the carrier refuses for good, with the SMPP status, and returns its credits", async () => {
    const before = (await w.db.prisma.account.findUniqueOrThrow({ where: { id: w.accountId } })).balance;
    const message = await w.send("+14155550004", "refused");
    await w.waitForStatus(message.id, ["failed"]);
    const row = await w.db.prisma.message.findUniqueOrThrow({ where: { id: message.id } });
    expect(row.errorCode).toBe("SMPP_ESME_RSUBMITFAIL");
    const after = (await w.db.prisma.account.findUniqueOrThrow({ where: { id: w.accountId } })).balance;
    expect(after).toBe(before);
  });
});

describe("routing and failover", () => {
  it("fails over to the next carrier when the first is down, and when it refuses the destination", async () => {
    const down = await closedPort();
    const w = await startDispatchWorld({
      carriers: [
        { id: "dead", port: down, priority: 0 },
        { id: "sim", priority: 1 },
      ],
    });
    try {
      const message = await w.send("+14155551010", "via the backup");
      await w.waitForStatus(message.id, ["sent", "delivered"]);
      const segment = await w.db.prisma.messageSegment.findFirstOrThrow({ where: { messageId: message.id } });
      expect(segment.carrierId).toBe("sim");
    } finally {
      await w.stop();
    }
  });

  it("fails with NO_ROUTE when no route covers the number, and the route refusal code when every carrier refuses", async () => {
    const w = await startDispatchWorld({ carriers: [{ id: "sim", prefix: "+44" }] });
    try {
      const message = await w.send("+14155551011", "nowhere to go");
      await w.waitForStatus(message.id, ["failed"]);
      expect((await w.db.prisma.message.findUniqueOrThrow({ where: { id: message.id } })).errorCode).toBe(
        "NO_ROUTE",
      );
      const refused = await w.send("+447911120009", "refused destination");
      await w.waitForStatus(refused.id, ["failed"]);
      expect((await w.db.prisma.message.findUniqueOrThrow({ where: { id: refused.id } })).errorCode).toBe(
        "SMPP_ESME_RINVDSTADR",
      );
    } finally {
      await w.stop();
    }
  });
});

describe("carrier trouble while submitting", () => {
  it("resubmits after the carrier drops the connection with submits in flight, and only those twice", async () => {
    const w = await startDispatchWorld({
      simulatorSettings: { settings: { receiptDelayMs: 20, submitLatencyMs: 400 } },
    });
    try {
      const messages = await Promise.all(
        Array.from({ length: 20 }, (_, i) => w.send(`+1415556${String(2000 + i)}`, `in flight ${i}`)),
      );
      await waitFor(() => w.simulator.stats().submits.inFlight >= 5, { what: "submits on the wire" });
      const inFlight = w.simulator.stats().submits.inFlight;
      w.simulator.dropConnections();
      w.simulator.update({ submitLatencyMs: 0 });
      for (const message of messages) await w.waitForStatus(message.id, ["sent", "delivered"], 30_000);
      const accepted = w.simulator.stats().submits.accepted;
      const resubmitted = await w.db.prisma.messageSegment.count({
        where: { messageId: { in: messages.map((m) => m.id) }, attempts: { gt: 1 } },
      });
      // A submit the simulator received but never answered was not accepted there: the
      // duplicates a handset could see are those it accepted twice, at most those on the wire.
      expect(accepted - messages.length).toBeLessThanOrEqual(inFlight);
      expect(resubmitted).toBeGreaterThan(0);
      expect(resubmitted).toBeLessThanOrEqual(inFlight + 20);
    } finally {
      await w.stop();
    }
  });
});
