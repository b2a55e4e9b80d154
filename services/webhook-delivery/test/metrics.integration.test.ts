import { sampleValue } from "@sms/metrics";
import { waitFor } from "@sms/testing";
import type { RunningWebhookDelivery } from "../src/service";
import { startWebhookWorld, type WebhookWorld } from "./harness";
import { startReceiver, type Receiver } from "./receiver";

let w: WebhookWorld;
let service: RunningWebhookDelivery;
let receiver: Receiver;

beforeAll(async () => {
  w = await startWebhookWorld();
  service = await w.start();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await w.close();
});

describe("webhook-delivery /metrics (real PostgreSQL, Redis, BullMQ, HTTP)", () => {
  it("counts attempts by outcome and the webhook.deliver batch jobs it completed", async () => {
    let answered = 0;
    // The first two POSTs fail with 503; every later one (the retries too) succeeds.
    receiver.answer = (_webhook, res) => res.writeHead(++answered <= 2 ? 503 : 204).end();
    const { accountId } = await w.account(receiver.url);
    await w.emitEvents(accountId, 3);
    await waitFor(
      async () => (await w.deliveries(accountId)).filter((d) => d.status === "succeeded").length === 3,
      { what: "three deliveries succeeded", timeoutMs: 20_000 },
    );
    const scrape = async () => (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text();
    const text = await waitFor(
      async () => {
        const body = await scrape();
        // The relay's batch of three, then one delayed batch of the two that failed (same step).
        return sampleValue(body, "sms_queue_jobs_processed_total", { queue: "webhook.deliver" }) === 2
          ? body
          : null;
      },
      { what: "two completed jobs on /metrics" },
    );
    expect(sampleValue(text, "sms_webhook_attempts_total", { outcome: "failure", status_class: "5xx" })).toBe(
      2,
    );
    expect(sampleValue(text, "sms_webhook_attempts_total", { outcome: "success", status_class: "2xx" })).toBe(
      3,
    );
    expect(sampleValue(text, "sms_webhook_attempt_duration_seconds_count")).toBe(5);
    // Retries are a new delayed job (not a failure); the wait is of each job's first run.
    expect(sampleValue(text, "sms_queue_jobs_failed_total", { queue: "webhook.deliver" }) ?? 0).toBe(0);
    expect(sampleValue(text, "sms_queue_job_wait_seconds_count", { queue: "webhook.deliver" })).toBe(2);
    expect(sampleValue(text, "sms_queue_jobs", { queue: "webhook.deliver", state: "delayed" })).toBe(0);
  });
});
