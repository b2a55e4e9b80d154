import { runService } from "@sms/service-runtime";
import { loadDlrIngestConfig } from "./config";
import { startDlrIngest } from "./service";

runService({ name: "dlr-ingest", loadConfig: () => loadDlrIngestConfig(), start: startDlrIngest });
