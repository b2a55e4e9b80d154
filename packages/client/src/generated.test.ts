import { readFileSync } from "node:fs";
import path from "node:path";
import { buildOpenApiDocument } from "@sms/api-gateway";
// @ts-expect-error: plain ESM script shared with scripts/generate.mjs, no types
import { renderSchema } from "../scripts/render-schema.mjs";

const root = path.join(__dirname, "..");
const fix = "out of date: run `pnpm --filter @sms/client generate` and commit the result";

describe("the generated files", () => {
  it(`openapi.json is the document the gateway serves (else ${fix})`, () => {
    const committed = JSON.parse(readFileSync(path.join(root, "openapi.json"), "utf8"));
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it(`src/generated/schema.ts is what openapi-typescript makes of it (else ${fix})`, async () => {
    const committed = readFileSync(path.join(root, "src/generated/schema.ts"), "utf8");
    expect(committed).toBe(await renderSchema(buildOpenApiDocument()));
  });
});
