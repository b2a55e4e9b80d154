import { Histogram } from "prom-client";
import type { MetricsRegistry } from "./registry";

/** What the middleware reads of an Express request (kept structural: no express dependency here). */
interface RouteAwareRequest {
  method: string;
  baseUrl?: string;
  route?: { path?: unknown };
}
interface ObservableResponse {
  statusCode: number;
  writableFinished: boolean;
  once(event: "finish" | "close", listener: () => void): unknown;
}

/** Route label of a request answered before any route matched: auth, body and rate-limit refusals, 404s. */
export const NO_ROUTE = "none";
/** Status label of a request whose client went away before the answer was written (nginx's convention). */
export const CLIENT_CLOSED = "499";
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);

/** HTTP request latency by route pattern, method and status. */
export class HttpMetrics {
  readonly requestDuration: Histogram<"method" | "route" | "status_code">;

  constructor(metrics: MetricsRegistry) {
    this.requestDuration = new Histogram({
      name: "sms_http_request_duration_seconds",
      help: "HTTP requests by route pattern (never the raw URL), method and status code: time to the last byte written",
      labelNames: ["method", "route", "status_code"],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [metrics.registry],
    });
  }

  /**
   * Express middleware observing every request once, when its answer is written (or its
   * client gives up). Mount it first, so refusals by later middleware are timed too.
   */
  middleware() {
    return (req: RouteAwareRequest, res: ObservableResponse, next: () => void): void => {
      const startedAt = process.hrtime.bigint();
      let observed = false;
      const observe = () => {
        if (observed) return;
        observed = true;
        const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
        this.requestDuration.observe(
          {
            method: METHODS.has(req.method) ? req.method : "OTHER",
            route: routeOf(req),
            status_code: res.writableFinished ? String(res.statusCode) : CLIENT_CLOSED,
          },
          seconds,
        );
      };
      res.once("finish", observe);
      res.once("close", observe);
      next();
    };
  }
}

/**
 * The matched route's pattern with its router's mount path (`/v1/sms/:id`), so label
 * values are bounded by the code's routes, whatever URLs clients send.
 */
function routeOf(req: RouteAwareRequest): string {
  const path = req.route?.path;
  if (typeof path !== "string") return NO_ROUTE;
  return `${req.baseUrl ?? ""}${path}` || "/";
}
