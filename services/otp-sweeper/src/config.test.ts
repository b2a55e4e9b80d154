import { ConfigError } from "@sms/config";
import { loadOtpSweeperConfig } from "./config";

describe("otp-sweeper config", () => {
  it("has the documented defaults", () => {
    expect(loadOtpSweeperConfig({})).toMatchObject({
      PORT: 3050,
      HOST: "0.0.0.0",
      OTP_SWEEP_INTERVAL_MS: 1000,
      OTP_SWEEP_BATCH_SIZE: 1000,
      SHUTDOWN_TIMEOUT_MS: 10_000,
      REDIS_PREFIX: "sms",
    });
  });

  it("coerces numbers from the environment", () => {
    expect(loadOtpSweeperConfig({ OTP_SWEEP_INTERVAL_MS: "50", PORT: "0" })).toMatchObject({
      OTP_SWEEP_INTERVAL_MS: 50,
      PORT: 0,
    });
  });

  it("names every bad setting", () => {
    const bad = { OTP_SWEEP_INTERVAL_MS: "often", OTP_SWEEP_BATCH_SIZE: "0", DATABASE_URL: "not a url" };
    expect(() => loadOtpSweeperConfig(bad)).toThrow(ConfigError);
    const message = String(captureError(() => loadOtpSweeperConfig(bad)));
    expect(message).toMatch(/OTP_SWEEP_INTERVAL_MS is invalid/);
    expect(message).toMatch(/OTP_SWEEP_BATCH_SIZE is invalid/);
    expect(message).toMatch(/DATABASE_URL is invalid/);
    expect(message).not.toMatch(/SHUTDOWN_TIMEOUT_MS/);
  });
});

function captureError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}
