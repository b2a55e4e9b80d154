// The service's entry for other workspaces (the cross-service tests in e2e/): how to start it and read its settings.
export { loadSchedulerConfig, type SchedulerConfig } from "./config";
export { startScheduler, type RunningScheduler } from "./service";
