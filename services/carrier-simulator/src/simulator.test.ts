import { setTimeout as sleep } from "node:timers/promises";
import {
  CommandStatus,
  ConnectionLostError,
  NotBoundError,
  parseReceipt,
  ResponseTimeoutError,
  type DeliverSm,
} from "@sms/smpp";
import { waitFor } from "@sms/testing";
import { control, Harness, receiptCollector, segment } from "../test/harness";

describe("carrier simulator traffic", () => {
  const harness = new Harness();
  afterEach(() => harness.closeAll());

  it("answers 1,000 submits with window 50 with unique ids and acknowledged receipts for each", async () => {
    const simulator = await harness.simulator({ windowSize: 50 });
    const persisted = new Set<string>();
    const ackedBeforePersisted: string[] = [];
    const client = await harness.client(simulator, {
      windowSize: 50,
      onDeliverSm: async (pdu: DeliverSm) => {
        const receipt = parseReceipt(pdu)!;
        await sleep(Math.random() * 3); // a database write
        // deliver_sm_resp goes out only after this resolves: the simulator must not have seen an ack yet.
        if (simulator.findMessage(receipt.messageId)?.status !== "accepted")
          ackedBeforePersisted.push(receipt.messageId);
        persisted.add(receipt.messageId);
      },
    });
    const responses = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => client.submit(segment(`+4477009${String(i).padStart(5, "1")}`))),
    );
    expect(responses.every((response) => response.command_status === CommandStatus.ESME_ROK)).toBe(true);
    const ids = new Set(responses.map((response) => response.message_id));
    expect(ids.size).toBe(1000);
    await waitFor(() => persisted.size === 1000, { what: "1,000 receipts persisted", timeoutMs: 20000 });
    expect([...persisted].every((id) => ids.has(id))).toBe(true);
    await waitFor(() => simulator.stats().receipts.acknowledged === 1000, {
      what: "1,000 receipts acknowledged",
    });
    expect(ackedBeforePersisted).toEqual([]);
    expect(simulator.stats().submits.maxInFlightPerBind).toBeLessThanOrEqual(50);
  });

  it("never sees more than the client's window outstanding", async () => {
    const simulator = await harness.simulator({ settings: { submitLatencyMs: 5 } });
    const client = await harness.client(simulator, { windowSize: 8 });
    await Promise.all(
      Array.from({ length: 120 }, () =>
        client.submit(segment("+447700900123", "x", { registered_delivery: 0 })),
      ),
    );
    expect(simulator.stats().submits.maxInFlightPerBind).toBe(8);
  });

  it("lets the client's response timeout fire when told not to answer", async () => {
    const simulator = await harness.simulator();
    const client = await harness.client(simulator, { responseTimeoutMs: 200 });
    expect((await control(simulator, "POST", "/control", { respondToSubmits: false })).status).toBe(200);
    await expect(client.submit(segment("+447700900123"))).rejects.toBeInstanceOf(ResponseTimeoutError);
    expect(simulator.messages({ to: "+447700900123" })).toEqual([
      expect.objectContaining({ status: "unanswered" }),
    ]);
  });

  it("refuses every submit with the status it is told to, then takes them again", async () => {
    const simulator = await harness.simulator();
    const client = await harness.client(simulator);
    const sysErr = CommandStatus.ESME_RSYSERR;
    expect((await control(simulator, "POST", "/control", { refuseSubmitsWith: sysErr })).status).toBe(200);
    const statuses = await Promise.all(
      ["+447700900123", "+447700900005", "+447700900010"].map(
        async (to) => (await client.submit(segment(to))).command_status,
      ),
    );
    expect(statuses).toEqual([sysErr, sysErr, sysErr]);
    expect(simulator.stats().submits).toMatchObject({ refused: 3, accepted: 0 });
    simulator.update({ refuseSubmitsWith: 0 });
    expect((await client.submit(segment("+447700900123"))).command_status).toBe(CommandStatus.ESME_ROK);
  });

  it("rejects in-flight submits with ConnectionLostError when it drops the socket, then the client re-binds", async () => {
    const simulator = await harness.simulator({ settings: { respondToSubmits: false } });
    const states: string[] = [];
    const client = await harness.client(simulator, { responseTimeoutMs: 30000 });
    client.on("state", (state) => states.push(state));
    const inFlight = Array.from({ length: 3 }, () => client.submit(segment("+447700900123")));
    await waitFor(() => simulator.stats().submits.inFlight === 3, { what: "3 submits at the simulator" });
    expect((await control(simulator, "POST", "/connections/drop")).status).toBe(204);
    for (const submit of inFlight) await expect(submit).rejects.toBeInstanceOf(ConnectionLostError);
    await client.waitUntilBound(5000);
    expect(states).toEqual(["disconnected", "connecting", "bound"]);
    simulator.update({ respondToSubmits: true });
    expect((await client.submit(segment("+447700900123"))).command_status).toBe(CommandStatus.ESME_ROK);
  });

  it("lets the client reconnect and re-bind after a restart on the same port", async () => {
    const first = await harness.simulator();
    const client = await harness.client(first);
    const before = await client.submit(segment("+447700900123"));
    await first.close();
    await waitFor(() => client.state !== "bound", { what: "client notices the restart" });
    await expect(client.submit(segment("+447700900123"))).rejects.toBeInstanceOf(NotBoundError);
    const second = await harness.simulator({ smppPort: first.smppPort });
    await client.waitUntilBound(5000);
    const after = await client.submit(segment("+447700900123"));
    expect(after.command_status).toBe(CommandStatus.ESME_ROK);
    expect(after.message_id).not.toBe(before.message_id);
    expect(second.stats().binds).toEqual([expect.objectContaining({ systemId: "acme", state: "bound_trx" })]);
  });

  it("answers ESME_RTHROTTLED beyond the per-second limit", async () => {
    const simulator = await harness.simulator({ settings: { throttlePerSecond: 5 } });
    const client = await harness.client(simulator, { windowSize: 20 });
    const statuses = (
      await Promise.all(Array.from({ length: 20 }, () => client.submit(segment("+447700900123"))))
    ).map((r) => r.command_status);
    const accepted = statuses.filter((status) => status === CommandStatus.ESME_ROK).length;
    expect(accepted).toBeGreaterThanOrEqual(5);
    expect(accepted).toBeLessThanOrEqual(10); // the 20 may straddle a second boundary
    expect(statuses.filter((status) => status === CommandStatus.ESME_RTHROTTLED)).toHaveLength(20 - accepted);
  });

  it("answers ESME_RMSGQFUL while too many receipts wait for a receiver", async () => {
    const simulator = await harness.simulator({ settings: { maxPendingReceipts: 2 } });
    const transmitter = await harness.client(simulator, { bindType: "transmitter" });
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await transmitter.submit(segment("+447700900123"))).command_status);
    expect(statuses).toEqual([CommandStatus.ESME_ROK, CommandStatus.ESME_ROK, CommandStatus.ESME_RMSGQFUL]);
    await harness.client(simulator, { bindType: "receiver" });
    await waitFor(() => simulator.stats().receipts.pending === 0, { what: "receipts delivered" });
    expect((await transmitter.submit(segment("+447700900123"))).command_status).toBe(CommandStatus.ESME_ROK);
  });

  it("sends receipts to receiver binds of the same system_id, round robin, and keeps them while none is bound", async () => {
    const simulator = await harness.simulator();
    const transmitter = await harness.client(simulator, { bindType: "transmitter" });
    const response = await transmitter.submit(segment("+447700900123"));
    await waitFor(() => simulator.stats().receipts.pending === 1, { what: "receipt waiting for a receiver" });
    const [first, second] = [receiptCollector(), receiptCollector()];
    await harness.client(simulator, { bindType: "receiver", onDeliverSm: first.onDeliverSm });
    await waitFor(() => first.received.length === 1, {
      what: "held receipt delivered once a receiver binds",
    });
    expect(parseReceipt(first.received[0]!)?.messageId).toBe(response.message_id);
    await harness.client(simulator, { bindType: "receiver", onDeliverSm: second.onDeliverSm });
    const other = receiptCollector();
    await harness.client(simulator, {
      systemId: "other",
      bindType: "receiver",
      onDeliverSm: other.onDeliverSm,
    });
    await Promise.all(Array.from({ length: 10 }, () => transmitter.submit(segment("+447700900123"))));
    await waitFor(() => first.received.length + second.received.length === 11, { what: "10 more receipts" });
    expect(first.received.length).toBeGreaterThan(1);
    expect(second.received.length).toBeGreaterThan(0);
    expect(other.received).toEqual([]);
  });

  it("measures submits per second with window 100 over loopback", async () => {
    const simulator = await harness.simulator({ recordLimit: 1000 });
    const client = await harness.client(simulator, { windowSize: 100 });
    const total = 20000;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: total }, () =>
        client.submit(segment("+447700900123", "Your code is 123456", { registered_delivery: 0 })),
      ),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    console.log(
      `carrier simulator throughput: ${Math.round(total / seconds)} submits/s (window 100, ${total} submits, loopback)`,
    );
    expect(simulator.stats().submits.accepted).toBe(total);
  });
});
