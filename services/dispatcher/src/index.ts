// The service's entry for other workspaces (the cross-service tests in e2e/): how to start it and read its settings.
export { loadDispatcherConfig, type DispatcherConfig } from "./config";
export { startDispatcher, type RunningDispatcher } from "./dispatcher";
// A batch's load and submit record, whose plans e2e/batch-probes reads.
export { loadMessages, recordSubmitted } from "./segments.sql";
