import crypto from "node:crypto";
import { ConfigError } from "@sms/config";
import { loadDlrIngestConfig as loadWith } from "./config";

/** The key is required (it opens the carriers' passwords); the other settings have defaults. */
const KEY = { SECRET_ENCRYPTION_KEY: crypto.randomBytes(32).toString("base64") };
const loadDlrIngestConfig = (env: Record<string, string>) => loadWith({ ...KEY, ...env });

describe("loadDlrIngestConfig", () => {
  it("has the documented defaults", () => {
    expect(loadDlrIngestConfig({})).toMatchObject({
      PORT: 3030,
      CARRIER_REFRESH_MS: 10000,
      SWEEP_INTERVAL_MS: 60000,
    });
    expect(loadDlrIngestConfig({}).HTTP_RECEIPT_TOKEN).toBeUndefined();
  });

  it("treats an empty HTTP_RECEIPT_TOKEN as unset and refuses a short one", () => {
    expect(loadDlrIngestConfig({ HTTP_RECEIPT_TOKEN: "" }).HTTP_RECEIPT_TOKEN).toBeUndefined();
    expect(() => loadDlrIngestConfig({ HTTP_RECEIPT_TOKEN: "short" })).toThrow(/HTTP_RECEIPT_TOKEN/);
  });

  it("requires SECRET_ENCRYPTION_KEY", () => {
    expect(() => loadWith({})).toThrow(/SECRET_ENCRYPTION_KEY/);
  });

  it("reads SHUTDOWN_GRACE_MS, the shutdown bound's former name, when SHUTDOWN_TIMEOUT_MS is unset", () => {
    expect(loadDlrIngestConfig({}).SHUTDOWN_TIMEOUT_MS).toBe(5000);
    expect(loadDlrIngestConfig({ SHUTDOWN_GRACE_MS: "2000" }).SHUTDOWN_TIMEOUT_MS).toBe(2000);
    expect(
      loadDlrIngestConfig({ SHUTDOWN_TIMEOUT_MS: "3000", SHUTDOWN_GRACE_MS: "2000" }).SHUTDOWN_TIMEOUT_MS,
    ).toBe(3000);
    expect(() => loadDlrIngestConfig({ SHUTDOWN_GRACE_MS: "soon" })).toThrow(/SHUTDOWN_TIMEOUT_MS/);
  });

  it("names a bad setting", () => {
    expect(() => loadDlrIngestConfig({ CARRIER_REFRESH_MS: "soon" })).toThrow(ConfigError);
    expect(() => loadDlrIngestConfig({ CARRIER_REFRESH_MS: "soon" })).toThrow(/CARRIER_REFRESH_MS/);
  });
});
