import { sampleValue } from "@sms/metrics";
import { waitFor } from "@sms/testing";
import { RECEIPT_TOKEN, startHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const scrape = async () => (await fetch(`${h.baseUrl}/metrics`)).text();
// …0006: the simulator accepts the message and never sends a receipt itself.
const SILENT_NUMBER = "+447700900006";

describe("dlr-ingest /metrics (real simulator, SMPP receiver bind, PostgreSQL, HTTP)", () => {
  it("counts receipts taken in over SMPP and over HTTP, and times the receipt endpoint by route", async () => {
    const overSmpp = await Promise.all([h.send("+447700900101"), h.send("+447700900102")]);
    for (const { messageId } of overSmpp) await h.waitForStatus(messageId, "delivered");

    const silent = await h.send(SILENT_NUMBER);
    const response = await fetch(`${h.baseUrl}/v1/carriers/${h.carrier.id}/receipts`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${RECEIPT_TOKEN}` },
      body: JSON.stringify({ message_id: silent.carrierMessageId, stat: "DELIVRD", err: "000" }),
    });
    expect(response.status).toBe(202);

    const text = await waitFor(
      async () => {
        const body = await scrape();
        return sampleValue(body, "sms_dlr_receipts_total", { source: "smpp" }) === 2 ? body : null;
      },
      { what: "two SMPP receipts on /metrics" },
    );
    const carrier = h.carrier.id;
    expect(sampleValue(text, "sms_dlr_deliver_sm_total", { kind: "receipt", carrier_id: carrier })).toBe(2);
    // The simulator sends a receipt 20 ms after its submit_sm_resp: on a loaded machine it
    // can come before the test has recorded the carrier's id. It is then stored 'unmatched'
    // and applied by that recording (waitForStatus saw both delivered), so the split
    // between the two outcomes is timing, their sum is not.
    const smppOutcome = (outcome: string) =>
      sampleValue(text, "sms_dlr_receipts_total", { source: "smpp", outcome }) ?? 0;
    expect(smppOutcome("applied") + smppOutcome("unmatched")).toBe(2);
    expect(sampleValue(text, "sms_dlr_receipts_total", { source: "http", outcome: "applied" })).toBe(1);
    expect(sampleValue(text, "sms_dlr_receipt_errors_total") ?? 0).toBe(0);
    const route = { method: "POST", route: "/v1/carriers/:carrierId/receipts", status_code: "202" };
    expect(sampleValue(text, "sms_http_request_duration_seconds_count", route)).toBe(1);
    const receiver = { carrier_id: carrier, bind_type: "receiver" };
    expect(sampleValue(text, "sms_smpp_carrier_binds", { ...receiver, state: "configured" })).toBeGreaterThan(
      0,
    );
    expect(sampleValue(text, "sms_smpp_carrier_binds", { ...receiver, state: "bound" })).toBe(
      sampleValue(text, "sms_smpp_carrier_binds", { ...receiver, state: "configured" }),
    );
  });
});
