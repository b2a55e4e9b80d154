// The service's entry for other workspaces (the cross-service tests in e2e/): how to start it and read its settings.
export { loadDispatcherConfig, type DispatcherConfig } from "./config";
export { startDispatcher, type RunningDispatcher } from "./dispatcher";
