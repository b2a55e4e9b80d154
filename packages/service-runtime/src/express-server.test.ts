import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { createExpressServer } from "./express-server";

describe("createExpressServer", () => {
  it("makes requests and responses with the app's prototypes before Express sees them, and serves the app", async () => {
    const app = express();
    app.use(express.json());
    app.post("/echo", (req, res) => {
      res.setHeader("X-Seen", req.get("x-probe") ?? "none");
      res.status(201).json({ body: req.body as unknown });
    });
    const server = createExpressServer(app);
    const seen: boolean[] = [];
    server.prependListener("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
      seen.push(
        Object.getPrototypeOf(req) === app.request &&
          Object.getPrototypeOf(res) === app.response &&
          req instanceof http.IncomingMessage &&
          res instanceof http.ServerResponse,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (let i = 0; i < 2; i++) {
        const response = await fetch(`http://127.0.0.1:${port}/echo`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-probe": `p${i}` },
          body: JSON.stringify({ n: i }),
        });
        expect(response.status).toBe(201);
        expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
        expect(response.headers.get("x-seen")).toBe(`p${i}`);
        expect(await response.json()).toEqual({ body: { n: i } });
      }
      expect(seen).toEqual([true, true]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
