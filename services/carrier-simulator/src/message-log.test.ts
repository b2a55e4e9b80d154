import { MessageLog, type ReceivedMessage } from "./message-log";

const message = (n: number, to = "+447700900123"): ReceivedMessage => ({
  messageId: `id${n}`,
  systemId: n % 2 ? "odd" : "even",
  receivedAt: new Date().toISOString(),
  from: "ACME",
  to,
  dataCoding: 0,
  esmClass: 0,
  registeredDelivery: 1,
  validityPeriod: "",
  text: `m${n}`,
  rawHex: "",
  segment: undefined,
  submitStatus: 0,
  status: "accepted",
  receiptsSent: 0,
});

describe("MessageLog", () => {
  it("keeps the newest `capacity` messages, oldest first, and forgets evicted ids", () => {
    const log = new MessageLog(3);
    for (let n = 1; n <= 5; n++) log.add(message(n));
    expect(log.find().map((m) => m.text)).toEqual(["m3", "m4", "m5"]);
    expect(log.get("id2")).toBeUndefined();
    expect(log.get("id5")?.text).toBe("m5");
  });

  it("matches destinations on digits and filters by system_id and limit", () => {
    const log = new MessageLog(10);
    log.add(message(1, "447700900123"));
    log.add(message(2, "+44 7700 900123"));
    log.add(message(3, "+447700900999"));
    expect(log.find({ to: "+447700900123" }).map((m) => m.text)).toEqual(["m1", "m2"]);
    expect(log.find({ systemId: "odd" }).map((m) => m.text)).toEqual(["m1", "m3"]);
    expect(log.find({ limit: 1 }).map((m) => m.text)).toEqual(["m3"]);
    log.clear();
    expect(log.find()).toEqual([]);
  });
});
