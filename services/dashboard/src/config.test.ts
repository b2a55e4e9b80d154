import crypto from "node:crypto";
import { ConfigError } from "@sms/config";
import { loadDashboardConfig } from "./config";

const key = crypto.randomBytes(32).toString("base64");

describe("loadDashboardConfig", () => {
  it("defaults to port 3100, secure cookies, 12 h sessions and 5 failures in 15 minutes", () => {
    expect(loadDashboardConfig({ SECRET_ENCRYPTION_KEY: key })).toMatchObject({
      PORT: 3100,
      DASHBOARD_SECURE_COOKIES: true,
      DASHBOARD_SESSION_HOURS: 12,
      DASHBOARD_SESSION_IDLE_MINUTES: 60,
      DASHBOARD_LOCKOUT_ATTEMPTS: 5,
      DASHBOARD_LOCKOUT_WINDOW_MINUTES: 15,
      DASHBOARD_BODY_LIMIT_BYTES: 16_384,
      WEBHOOK_ALLOW_LOOPBACK: false,
      WEBHOOK_ALLOW_HTTP: false,
    });
  });

  it("names a missing key and a bad setting", () => {
    expect(() => loadDashboardConfig({})).toThrow(/SECRET_ENCRYPTION_KEY is missing/);
    expect(() =>
      loadDashboardConfig({ SECRET_ENCRYPTION_KEY: key, DASHBOARD_LOCKOUT_ATTEMPTS: "0" }),
    ).toThrow(ConfigError);
    expect(() =>
      loadDashboardConfig({ SECRET_ENCRYPTION_KEY: key, DASHBOARD_SECURE_COOKIES: "maybe" }),
    ).toThrow(/DASHBOARD_SECURE_COOKIES/);
  });
});
