export { healthRoutes, livenessRoutes, type MetricsSource, type ReadinessCheck } from "./health-routes";
export { startHealthServer, type HealthServerOptions } from "./health-server";
export { readinessChecks, type ReadinessDependencies } from "./readiness";
