import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
// @sms/metrics links only prom-client and @sms/queues; its instrumentation is proven here, where Express, Redis and BullMQ are at hand.
import { HttpMetrics, MetricsRegistry, sampleValue } from "@sms/metrics";

describe("HTTP metrics middleware (real Express over HTTP)", () => {
  it("labels by mount path + route pattern, 'none' before any route, and 499 when the client gives up", async () => {
    const registry = new MetricsRegistry({ defaultMetrics: false });
    const metrics = new HttpMetrics(registry);
    const app = express();
    app.use(metrics.middleware());
    const items = express.Router();
    items.get("/:id", (req, res) => res.status(req.params.id === "0" ? 404 : 200).json({}));
    app.use("/v1/items", items);
    app.get("/slow", () => undefined); // never answers
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const id of ["1", "2", "0"]) await fetch(`${base}/v1/items/${id}`);
      await fetch(`${base}/nowhere/${Math.random()}`);
      await new Promise<void>((resolve) => {
        const req = http.get(`${base}/slow`);
        req.on("error", () => undefined);
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 100);
      });
      const text = await waitForSample(registry, { route: "/slow" });
      const count = (labels: Record<string, string>) =>
        sampleValue(text, "sms_http_request_duration_seconds_count", labels);
      expect(count({ method: "GET", route: "/v1/items/:id", status_code: "200" })).toBe(2);
      expect(count({ method: "GET", route: "/v1/items/:id", status_code: "404" })).toBe(1);
      expect(count({ route: "none", status_code: "404" })).toBe(1);
      expect(count({ route: "/slow", status_code: "499" })).toBe(1);
      expect(text).not.toContain("nowhere");
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

async function waitForSample(registry: MetricsRegistry, labels: Record<string, string>): Promise<string> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const text = await registry.render();
    if (sampleValue(text, "sms_http_request_duration_seconds_count", labels) !== undefined) return text;
    if (Date.now() > deadline) throw new Error("the aborted request was never observed");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
