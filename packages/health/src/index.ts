export { healthRoutes, livenessRoutes, type MetricsSource, type ReadinessCheck } from "./health-routes";
export { startHealthServer } from "./health-server";
