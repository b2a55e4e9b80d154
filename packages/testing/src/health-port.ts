/**
 * Services whose public PORT answers /healthz only: /readyz and /metrics are on an internal
 * HEALTH_PORT. Read by launchService and by the benches (bench/support.ts).
 */
export const WITH_HEALTH_PORT: ReadonlySet<string> = new Set(["api-gateway", "dashboard"]);
