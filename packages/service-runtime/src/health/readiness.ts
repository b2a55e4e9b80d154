import type { ReadinessCheck } from "./health-routes";

/** The clients a service's readiness asks: the pg pool and the ioredis client it already has. */
export interface ReadinessDependencies {
  postgres?: { query(sql: string): Promise<unknown> };
  redis?: { ping(): Promise<unknown> };
}

/** One /readyz check per dependency given: `SELECT 1` on PostgreSQL, `PING` on Redis. */
export function readinessChecks(dependencies: ReadinessDependencies): Record<string, ReadinessCheck> {
  const checks: Record<string, ReadinessCheck> = {};
  const { postgres, redis } = dependencies;
  if (postgres) checks.postgres = async () => void (await postgres.query("SELECT 1"));
  if (redis) checks.redis = async () => void (await redis.ping());
  return checks;
}
