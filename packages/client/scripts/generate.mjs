// Writes openapi.json (the document the gateway serves) and src/generated/schema.ts (its
// types, by openapi-typescript). Run after an API change: `pnpm --filter @sms/client generate`.
// src/generated.test.ts fails when either is out of date.
import { build } from "esbuild";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { renderSchema } from "./render-schema.mjs";

const here = path.resolve(import.meta.dirname, "..");
const bundle = path.join(mkdtempSync(path.join(os.tmpdir(), "openapi-")), "openapi.cjs");
await build({
  entryPoints: [path.join(here, "../../services/api-gateway/src/openapi.ts")],
  outfile: bundle,
  bundle: true,
  platform: "node",
  format: "cjs",
  logLevel: "warning",
});
const document = createRequire(import.meta.url)(bundle).buildOpenApiDocument();
writeFileSync(path.join(here, "openapi.json"), JSON.stringify(document, null, 2) + "\n");
writeFileSync(path.join(here, "src/generated/schema.ts"), await renderSchema(document));
console.log("wrote openapi.json and src/generated/schema.ts");
