import { runService } from "@sms/service-runtime";
import { loadOpsConsoleConfig } from "./config";
import { runHashPassword } from "./hash-password.command";
import { startOpsConsole } from "./service";

if (process.argv[2] === "hash-password") {
  void runHashPassword();
} else {
  runService({ name: "ops-console", loadConfig: () => loadOpsConsoleConfig(), start: startOpsConsole });
}
