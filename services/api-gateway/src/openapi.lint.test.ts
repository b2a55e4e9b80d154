import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { buildOpenApiDocument } from "./openapi";

const document = buildOpenApiDocument() as any;
const METHODS = ["get", "post", "put", "patch", "delete"];
const operations = Object.entries(document.paths as Record<string, any>).flatMap(([route, item]) =>
  METHODS.filter((method) => item[method]).map((method) => ({ route, method, operation: item[method] })),
);

describe("the OpenAPI document", () => {
  it("passes Redocly CLI's recommended-strict rules (and ours) with no error and no warning", async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "openapi-")), "openapi.json");
    writeFileSync(file, JSON.stringify(document));
    const cli = path.join(path.dirname(require.resolve("@redocly/cli/package.json")), "bin/cli.js");
    const config = path.join(__dirname, "..", "redocly.yaml");
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [cli, "lint", "--config", config, "--format=json", file],
      { env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" } },
    ).catch((error: { stdout: string }) => error);
    const report = JSON.parse(stdout);
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it("names every operation for generated clients", () => {
    expect(operations.map((o) => o.operation.operationId).sort()).toEqual([
      "addSuppression",
      "cancelMessage",
      "exportMessages",
      "getAccount",
      "getBatch",
      "getInbound",
      "getMessage",
      "getOtp",
      "listInbound",
      "listMessages",
      "listSuppressions",
      "removeSuppression",
      "sendBulk",
      "sendOtp",
      "sendSms",
      "verifyOtp",
    ]);
  });

  it("has an example for every request and response, and the error schema on every 4xx/5xx", () => {
    for (const { route, method, operation } of operations) {
      const where = `${method} ${route}`;
      expect([where, operation.tags?.length]).toEqual([where, 1]);
      const requestBody = operation.requestBody?.content["application/json"];
      if (requestBody) expect([where, requestBody.example]).toEqual([where, expect.anything()]);
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        // 204 is the one answer without a body.
        if (status === "204") {
          expect([where, status, response.content]).toEqual([where, status, undefined]);
          continue;
        }
        // The export's 200 is CSV; every other body is JSON.
        const content = response.content["application/json"] ?? response.content["text/csv"];
        expect([where, status, content.example]).toEqual([where, status, expect.anything()]);
        if (Number(status) >= 400)
          expect([where, status, content.schema]).toEqual([
            where,
            status,
            { $ref: "#/components/schemas/Error" },
          ]);
      }
    }
  });

  it("documents the webhooks a receiver gets, message.received included", () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([
      "messageReceived",
      "messageStatus",
      "webhookTest",
    ]);
    expect(document.info.license).toEqual({ name: "MIT", identifier: "MIT" });
  });
});
