// The service's entry for other workspaces (the dashboard's bind count): the bind leases it
// holds in Redis. The cross-service tests in e2e/ start it through test/harness.ts.
export { BindLeases } from "./bind-leases";
