import type { Router } from "express";
import express from "express";

export type ReadinessCheck = () => Promise<void>;

/** /healthz (the process answers) and /readyz (its dependencies answer and it is not shutting down). */
export function healthRoutes(checks: Record<string, ReadinessCheck>, isShuttingDown: () => boolean): Router {
  const router = express.Router();
  router.get("/healthz", (_req, res) => res.json({ status: "ok" }));
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
