import { commonSettings, envInt, loadConfig, z } from "@sms/config";

const OtpSweeperSettings = z.object({
  ...commonSettings,
  /** Port of /healthz, /readyz and /metrics. */
  PORT: envInt(3050, 0, 65535),
  /** Address the health/metrics port listens on. */
  HOST: z.string().default("0.0.0.0"),
  /** Milliseconds between sweeps; an OTP is marked expired, and its unsent SMS failed, within about this long. */
  OTP_SWEEP_INTERVAL_MS: envInt(1000, 10, 60_000),
  /** OTPs expired, or OTP messages failed, per statement; a sweep repeats until fewer than this are due. */
  OTP_SWEEP_BATCH_SIZE: envInt(1000, 1, 10_000),
  /** Bound on a graceful stop: the sweep in progress gets this long. */
  SHUTDOWN_TIMEOUT_MS: envInt(10_000, 100, 120_000),
});

export type OtpSweeperConfig = z.infer<typeof OtpSweeperSettings>;

export function loadOtpSweeperConfig(env: NodeJS.ProcessEnv = process.env): OtpSweeperConfig {
  return loadConfig(OtpSweeperSettings, env);
}
