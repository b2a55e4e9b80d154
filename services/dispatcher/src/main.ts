import { runService } from "@sms/service-runtime";
import { loadDispatcherConfig } from "./config";
import { startDispatcher } from "./dispatcher";

runService({
  name: "dispatcher",
  loadConfig: () => loadDispatcherConfig(),
  start: startDispatcher,
  // stop() hands jobs back at SHUTDOWN_TIMEOUT_MS; this is the backstop should something still hang.
  shutdownTimeoutMs: (config) => config.SHUTDOWN_TIMEOUT_MS + 5000,
});
