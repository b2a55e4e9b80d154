import { sampleValue } from "@sms/metrics";
import { encodeGsm7 } from "@sms/sms-encoding";
import { CommandStatus, type DeliverSm } from "@sms/smpp";
import { waitFor } from "@sms/testing";
import { startHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const scrape = async () => (await fetch(`http://127.0.0.1:${h.server.port}/metrics`)).text();
const submitFields = {
  source_addr: "ACME",
  destination_addr: "447911123456",
  dest_addr_ton: 1,
  data_coding: 0,
  registered_delivery: 1,
  short_message: Buffer.from(encodeGsm7("metrics")),
};

describe("smpp-server /metrics (real SMPP over TCP, PostgreSQL, Redis, BullMQ, HTTP)", () => {
  it("counts binds, submits by outcome, throttling as a rate-limit rejection, and receipts sent", async () => {
    const customer = await h.addCustomer({ rps: 3 });
    const transmitter = await h.bind(customer, { bindType: "transmitter" });
    const received: DeliverSm[] = [];
    await h.bind(customer, { bindType: "receiver", onDeliverSm: (pdu) => void received.push(pdu) });

    const answers = await Promise.all(
      Array.from({ length: 8 }, () => transmitter.submit(submitFields as never)),
    );
    const accepted = answers.filter((a) => a.command_status === CommandStatus.ESME_ROK);
    const throttled = answers.filter((a) => a.command_status === CommandStatus.ESME_RTHROTTLED).length;
    expect(accepted.length).toBeGreaterThan(0);
    expect(throttled).toBeGreaterThan(0);
    expect(accepted.length + throttled).toBe(8);

    await h.enqueueReceipt({
      accountId: customer.accountId,
      messageId: accepted[0]!.message_id!,
      status: "delivered",
      errorCode: null,
    });
    await waitFor(() => received.length === 1, { what: "the receipt as deliver_sm" });
    const text = await waitFor(
      async () => {
        const body = await scrape();
        return sampleValue(body, "sms_smpp_server_receipts_total", { outcome: "delivered" }) === 1
          ? body
          : null;
      },
      { what: "the acknowledged receipt on /metrics" },
    );
    expect(sampleValue(text, "sms_smpp_server_binds")).toBe(2);
    expect(sampleValue(text, "sms_smpp_server_bind_requests_total", { outcome: "accepted" })).toBe(2);
    expect(sampleValue(text, "sms_smpp_server_submits_total", { outcome: "accepted" })).toBe(accepted.length);
    expect(sampleValue(text, "sms_smpp_server_submits_total", { outcome: "throttled" })).toBe(throttled);
    expect(
      sampleValue(text, "sms_rate_limit_rejections_total", { source: "smpp", reason: "RATE_LIMITED" }),
    ).toBe(throttled);
    expect(sampleValue(text, "sms_queue_jobs_processed_total", { queue: "smpp.dlr-out" })).toBe(1);
    expect(sampleValue(text, "sms_queue_jobs", { queue: "smpp.dlr-out", state: "waiting" })).toBe(0);
  });
});
