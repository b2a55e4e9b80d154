import { runService } from "@sms/service-runtime";
import { loadDispatcherConfig } from "./config";
import { startDispatcher } from "./dispatcher";

runService({ name: "dispatcher", loadConfig: () => loadDispatcherConfig(), start: startDispatcher });
