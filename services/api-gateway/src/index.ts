// The service's entry for other workspaces (the cross-service tests in e2e/, the client's
// generated files): how to start it, read its settings, and the OpenAPI document it serves.
export { loadGatewayConfig, type GatewayConfig } from "./config";
export { startGateway, type RunningGateway } from "./server";
export { buildOpenApiDocument } from "./openapi";
