import { runService } from "@sms/service-runtime";
import { loadSmppServerConfig } from "./config";
import { startSmppServer } from "./service";

runService({
  name: "smpp-server",
  loadConfig: () => loadSmppServerConfig(),
  start: startSmppServer,
  // stop() is bounded by SHUTDOWN_TIMEOUT_MS; this is the backstop should something still hang.
  shutdownTimeoutMs: (config) => config.SHUTDOWN_TIMEOUT_MS + 5000,
});
