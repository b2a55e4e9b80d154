import type { AddressInfo } from "node:net";
import express from "express";
import { healthRoutes, type MetricsSource } from "./health-routes";

async function serve(metrics?: MetricsSource) {
  const app = express().use(healthRoutes({}, () => false, metrics));
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe("/metrics on the health routes (real HTTP)", () => {
  it("serves the source's text with its content type", async () => {
    const server = await serve({
      contentType: "text/plain; version=0.0.4; charset=utf-8",
      render: async () => "sms_up 1\n",
    });
    try {
      const response = await fetch(`${server.url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
      expect(await response.text()).toBe("sms_up 1\n");
    } finally {
      await server.close();
    }
  });

  it("answers 500 when a collector fails, and 404 when the service has no metrics", async () => {
    const failing = await serve({
      contentType: "text/plain",
      render: async () => {
        throw new Error("collector broke");
      },
    });
    const none = await serve();
    try {
      const response = await fetch(`${failing.url}/metrics`);
      expect(response.status).toBe(500);
      expect(await response.text()).not.toContain("collector broke");
      expect((await fetch(`${none.url}/metrics`)).status).toBe(404);
      expect((await fetch(`${none.url}/healthz`)).status).toBe(200);
    } finally {
      await failing.close();
      await none.close();
    }
  });
});
