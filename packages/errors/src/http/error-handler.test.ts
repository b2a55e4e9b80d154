import express from "express";
import type { AddressInfo } from "node:net";
import { createLogger } from "@sms/logger";
import { errorHandler } from "./error-handler";
import { assignRequestId } from "./request-id";

describe("errorHandler", () => {
  it("answers a bug with 500 INTERNAL in the documented shape, without leaking its message", async () => {
    const app = express();
    app.use(assignRequestId);
    app.get("/boom", () => {
      throw new Error("secret table name in a stack trace");
    });
    app.use(errorHandler(createLogger("test", "error")));
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/boom`);
      const body = (await response.json()) as { error: Record<string, unknown> };
      expect(response.status).toBe(500);
      expect(body.error).toEqual({
        code: "INTERNAL",
        message: expect.any(String),
        request_id: response.headers.get("x-request-id"),
      });
      expect(JSON.stringify(body)).not.toContain("secret");
    } finally {
      server.close();
    }
  });
});
