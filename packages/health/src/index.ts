export { healthRoutes, type ReadinessCheck } from "./health-routes";
export { startHealthServer } from "./health-server";
