import { ConfigError } from "@sms/config";
import { loadSchedulerConfig } from "./config";

describe("scheduler config", () => {
  it("has the documented defaults", () => {
    expect(loadSchedulerConfig({})).toMatchObject({
      PORT: 3010,
      SCHEDULER_INTERVAL_MS: 200,
      SCHEDULER_BATCH_SIZE: 1000,
      RECONCILE_INTERVAL_MS: 10_000,
      RECONCILE_STALE_AFTER_MS: 30_000,
      RECONCILE_BATCH_SIZE: 1000,
      RECONCILE_MAX_PER_TICK: 10_000,
      OUTBOX_STALE_AFTER_MS: 10_000,
      HANDOFF_TIMEOUT_MS: 2000,
      EXPIRY_INTERVAL_MS: 1000,
      EXPIRY_BATCH_SIZE: 1000,
      EXPIRY_MAX_PER_TICK: 20_000,
      RECEIPT_TIMEOUT_GRACE_SECONDS: 3600,
      SHUTDOWN_TIMEOUT_MS: 10_000,
      REDIS_PREFIX: "sms",
    });
  });

  it("coerces numbers from the environment", () => {
    expect(loadSchedulerConfig({ SCHEDULER_INTERVAL_MS: "50", PORT: "0" })).toMatchObject({
      SCHEDULER_INTERVAL_MS: 50,
      PORT: 0,
    });
  });

  it("names every bad setting", () => {
    expect(() =>
      loadSchedulerConfig({ SCHEDULER_INTERVAL_MS: "fast", RECONCILE_STALE_AFTER_MS: "5" }),
    ).toThrow(ConfigError);
    try {
      loadSchedulerConfig({ SCHEDULER_INTERVAL_MS: "fast", RECONCILE_STALE_AFTER_MS: "5" });
    } catch (error) {
      expect(String(error)).toMatch(/SCHEDULER_INTERVAL_MS is invalid/);
      expect(String(error)).toMatch(/RECONCILE_STALE_AFTER_MS is invalid/);
    }
  });
});
