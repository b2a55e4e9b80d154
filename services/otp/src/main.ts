import { runService } from "@sms/service-runtime";
import { loadOtpServiceConfig } from "./config";
import { startOtpService } from "./service";

runService({
  name: "otp",
  loadConfig: () => loadOtpServiceConfig(),
  start: startOtpService,
  // stop() is bounded by SHUTDOWN_TIMEOUT_MS; this is the backstop should something still hang.
  shutdownTimeoutMs: (config) => config.SHUTDOWN_TIMEOUT_MS + 5000,
});
