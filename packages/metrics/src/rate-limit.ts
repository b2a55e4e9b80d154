import { Counter } from "prom-client";
import type { MetricsRegistry } from "./registry";

export type RateLimitReason = "RATE_LIMITED" | "QUOTA_EXCEEDED";

/** Requests refused by the per-account limits (docs/rate-limits.md), where the refusal is made. */
export class RateLimitMetrics {
  readonly rejections: Counter<"source" | "reason">;

  constructor(metrics: MetricsRegistry) {
    this.rejections = new Counter({
      name: "sms_rate_limit_rejections_total",
      help: "Requests refused by an account's limits: source http (429) or smpp (ESME_RTHROTTLED and friends), reason RATE_LIMITED or QUOTA_EXCEEDED",
      labelNames: ["source", "reason"],
      registers: [metrics.registry],
    });
  }

  /** Counts one refusal. */
  reject(source: "http" | "smpp", reason: RateLimitReason): void {
    this.rejections.inc({ source, reason });
  }
}
