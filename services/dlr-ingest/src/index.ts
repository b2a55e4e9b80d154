// The service's entry for other workspaces (the cross-service tests in e2e/): how to start it and read its settings.
export { loadDlrIngestConfig, type DlrIngestConfig } from "./config";
export { startDlrIngest, type RunningDlrIngest } from "./service";
