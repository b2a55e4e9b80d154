import crypto from "node:crypto";
import { ConfigError } from "@sms/config";
import { loadWebhookDeliveryConfig } from "./config";
import { DEFAULT_RETRY_SCHEDULE_MS } from "./schedule";

const key = crypto.randomBytes(32).toString("base64");

describe("webhook-delivery config", () => {
  it("defaults to docs/webhooks.md: 15 s, the 10-attempt schedule, 5 days, no loopback, https only", () => {
    const config = loadWebhookDeliveryConfig({ SECRET_ENCRYPTION_KEY: key });
    expect(config).toMatchObject({
      WEBHOOK_TIMEOUT_MS: 15_000,
      WEBHOOK_RETRY_SCHEDULE_MS: DEFAULT_RETRY_SCHEDULE_MS,
      WEBHOOK_DISABLE_AFTER_MS: 5 * 24 * 3600 * 1000,
      WEBHOOK_ALLOW_LOOPBACK: false,
      WEBHOOK_ALLOW_HTTP: false,
    });
  });

  it("names a missing key, a bad schedule, and a lock shorter than the timeout", () => {
    expect(() => loadWebhookDeliveryConfig({})).toThrow(/SECRET_ENCRYPTION_KEY is missing/);
    expect(() =>
      loadWebhookDeliveryConfig({ SECRET_ENCRYPTION_KEY: key, WEBHOOK_RETRY_SCHEDULE_MS: "5s,1m" }),
    ).toThrow(/WEBHOOK_RETRY_SCHEDULE_MS is invalid/);
    expect(() =>
      loadWebhookDeliveryConfig({
        SECRET_ENCRYPTION_KEY: key,
        WEBHOOK_TIMEOUT_MS: "20000",
        WEBHOOK_LOCK_MS: "10000",
      }),
    ).toThrow(ConfigError);
  });

  it("works both webhook classes unless given a lane's", () => {
    const classes = (value?: string) =>
      loadWebhookDeliveryConfig({
        SECRET_ENCRYPTION_KEY: key,
        ...(value === undefined ? {} : { WEBHOOK_CLASSES: value }),
      }).WEBHOOK_CLASSES;
    expect(classes()).toEqual(["high", "standard"]);
    expect(classes("high")).toEqual(["high"]);
    expect(classes(" standard,standard")).toEqual(["standard"]);
    for (const value of ["normal", "high,"])
      expect(() => classes(value)).toThrow(/WEBHOOK_CLASSES is invalid/);
    expect(() => classes("")).toThrow(/WEBHOOK_CLASSES is missing/);
  });
});
