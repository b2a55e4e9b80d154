import { runService } from "@sms/service-runtime";
import { loadDashboardConfig } from "./config";
import { startDashboard } from "./service";

runService({
  name: "dashboard",
  loadConfig: () => loadDashboardConfig(),
  start: startDashboard,
  // stop() is bounded by SHUTDOWN_TIMEOUT_MS; this is the backstop should something still hang.
  shutdownTimeoutMs: (config) => config.SHUTDOWN_TIMEOUT_MS + 5000,
});
