import fs from "node:fs";
import path from "node:path";

// The convention of docs/testing.md, held: a file named `*.test.ts` is in the unit project
// (`pnpm test:unit`, no PostgreSQL, Redis or built bundle), so it must not reach for them.
const ROOT = path.resolve(__dirname, "../../..");
const NOT_UNIT = /\.(integration|process|e2e)\.test\.ts$/;
const NEEDS_SERVERS =
  /createTestWorld|createDatabase\(|createRedis\(|startHarness|start[A-Za-z]*World\(|startTestGateway|launchService|startServiceProcess|dist\/main\.js/;

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name === "dist") return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

describe("the test convention", () => {
  const all = ["packages", "services", "deploy"].flatMap((top) => testFiles(path.join(ROOT, top)));

  it("finds the workspace's tests", () => {
    expect(all.length).toBeGreaterThan(200);
  });

  it("a *.test.ts file starts no PostgreSQL, Redis or service: those are *.integration or *.process tests", () => {
    const misnamed = all
      .filter((file) => file !== __filename && !NOT_UNIT.test(file))
      .filter((file) => NEEDS_SERVERS.test(fs.readFileSync(file, "utf8")))
      .map((file) => path.relative(ROOT, file));
    expect(misnamed).toEqual([]);
  });
});
