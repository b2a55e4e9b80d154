import { sampleValue } from "@sms/metrics";
import { waitFor } from "@sms/testing";
import { startDispatchWorld, type DispatchWorld } from "./harness";

describe("dispatcher /metrics (real simulator, PostgreSQL, Redis, HTTP)", () => {
  let w: DispatchWorld;
  beforeAll(async () => {
    w = await startDispatchWorld();
  });
  afterAll(() => w.stop());

  const scrape = async () => (await fetch(`http://127.0.0.1:${w.dispatcher.port}/metrics`)).text();

  it("counts the dispatch jobs it processed, their wait, their messages by class, and its carrier binds and window", async () => {
    const queue = "sms.dispatch.normal";
    const before = await scrape();
    expect(sampleValue(before, "sms_queue_jobs_processed_total", { queue }) ?? 0).toBe(0);

    const sent = await Promise.all([1, 2, 3].map((n) => w.send(`+1415555010${n}`, `metrics ${n}`)));
    for (const message of sent) await w.waitForStatus(message.id, ["sent", "delivered"]);
    const text = await waitFor(
      async () => {
        const body = await scrape();
        return sampleValue(body, "sms_dispatch_messages_total", { priority: "normal", outcome: "sent" }) === 3
          ? body
          : null;
      },
      { what: "three sent messages on /metrics" },
    );
    // Sends accepted together share a job: one to three jobs for the three messages.
    const jobs = sampleValue(text, "sms_queue_jobs_processed_total", { queue })!;
    expect(jobs).toBeGreaterThanOrEqual(1);
    expect(jobs).toBeLessThanOrEqual(3);
    expect(sampleValue(text, "sms_queue_job_wait_seconds_count", { queue })).toBe(jobs);
    expect(sampleValue(text, "sms_queue_job_duration_seconds_count", { queue })).toBe(jobs);
    expect(sampleValue(text, "sms_queue_jobs_failed_total", { queue }) ?? 0).toBe(0);
    // Nothing left waiting: the depth is read from Redis at scrape time.
    expect(sampleValue(text, "sms_queue_jobs", { queue, state: "waiting" })).toBe(0);
    // The harness configures 2 transmitter binds with a window of 20 each.
    const sim = { carrier_id: "sim", bind_type: "transmitter" };
    expect(sampleValue(text, "sms_smpp_carrier_binds", { ...sim, state: "configured" })).toBe(2);
    expect(sampleValue(text, "sms_smpp_carrier_binds", { ...sim, state: "bound" })).toBe(2);
    expect(sampleValue(text, "sms_smpp_window_capacity", { carrier_id: "sim" })).toBe(40);
    expect(sampleValue(text, "sms_smpp_window_outstanding", { carrier_id: "sim" })).toBe(0);
  });
});
