// The service's entry for other workspaces (the cross-service tests in e2e/, the dashboard's
// bind count): how to start it, read its settings, and the bind leases it holds in Redis.
export { loadSmppServerConfig, type SmppServerConfig } from "./config";
export { startSmppServer, type RunningSmppServer } from "./service";
export { BindLeases } from "./bind-leases";
