import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(__dirname, "..");
const flags: Record<string, string[]> = JSON.parse(
  readFileSync(path.join(root, "scripts", "node-flags.json"), "utf8"),
);

// A misspelt service name or flag would be dropped without a word, and the service would run
// as before, only slower (docs/operations.md#webhook-delivery).
describe("scripts/node-flags.json", () => {
  it.each(Object.entries(flags))("names the service %s, with flags node accepts", (name, given) => {
    expect(existsSync(path.join(root, "services", name, "src", "main.ts"))).toBe(true);
    expect(spawnSync(process.execPath, [...given, "-e", "0"]).status).toBe(0);
  });

  it("is what the container entrypoint gives each service, and nothing to the others", () => {
    const entrypoint = readFileSync(path.join(root, "scripts", "container-entrypoint.sh"), "utf8");
    const readFlags = /^\s*(read -r -a flags .*)$/m.exec(entrypoint)?.[1];
    expect(readFlags).toBeDefined();
    for (const name of [...Object.keys(flags), "api-gateway"]) {
      const given = execFileSync(
        "bash",
        ["-c", `set -euo pipefail; service="$1"; ${readFlags}; echo "\${flags[*]}"`, "-", name],
        { cwd: root, encoding: "utf8" },
      );
      expect(given.trim()).toBe((flags[name] ?? []).join(" "));
    }
  });
});
