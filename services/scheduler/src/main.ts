import { runService } from "@sms/service-runtime";
import { loadSchedulerConfig } from "./config";
import { startScheduler } from "./service";

runService({
  name: "scheduler",
  loadConfig: () => loadSchedulerConfig(),
  start: startScheduler,
  // stop() is bounded by SHUTDOWN_TIMEOUT_MS; this is the backstop should something still hang.
  shutdownTimeoutMs: (config) => config.SHUTDOWN_TIMEOUT_MS + 5000,
});
