import { runService } from "@sms/service-runtime";
import { loadOtpSweeperConfig } from "./config";
import { startOtpSweeper } from "./service";

runService({
  name: "otp-sweeper",
  loadConfig: () => loadOtpSweeperConfig(),
  start: startOtpSweeper,
  // stop() is bounded by SHUTDOWN_TIMEOUT_MS; this is the backstop should something still hang.
  shutdownTimeoutMs: (config) => config.SHUTDOWN_TIMEOUT_MS + 5000,
});
