import type { Router } from "express";
import express from "express";

export type ReadinessCheck = () => Promise<void>;

/** What GET /metrics serves: a registry's exposition text (an @sms/metrics MetricsRegistry). */
export interface MetricsSource {
  readonly contentType: string;
  render(): Promise<string>;
}

/**
 * /healthz only: what a public port answers. Readiness details name our dependencies and their
 * errors, and metrics show traffic: both stay on the internal health port.
 */
export function livenessRoutes(): Router {
  const router = express.Router();
  router.get("/healthz", (_req, res) => res.json({ status: "ok" }));
  return router;
}

/**
 * /healthz (the process answers), /readyz (its dependencies answer and it is not shutting
 * down) and, given a source, /metrics.
 */
export function healthRoutes(
  checks: Record<string, ReadinessCheck>,
  isShuttingDown: () => boolean,
  metrics?: MetricsSource,
): Router {
  const router = livenessRoutes();
  if (metrics) {
    // Answered while shutting down too: the last scrape shows how the drain went.
    router.get("/metrics", async (_req, res) => {
      try {
        const body = await metrics.render();
        res.type(metrics.contentType).send(body);
      } catch {
        res.status(500).type("text/plain").send("# metrics could not be collected\n");
      }
    });
  }
  router.get("/readyz", async (_req, res) => {
    if (isShuttingDown()) return res.status(503).json({ status: "shutting_down" });
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await withTimeout(check(), 1500);
          return [name, "ok"] as const;
        } catch (error) {
          return [name, `failing: ${error instanceof Error ? error.message : String(error)}`] as const;
        }
      }),
    );
    const ok = results.every(([, state]) => state === "ok");
    res
      .status(ok ? 200 : 503)
      .json({ status: ok ? "ready" : "not_ready", checks: Object.fromEntries(results) });
  });
  return router;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
