import fs from "node:fs";
import path from "node:path";
import { filesUnder, REPO_ROOT } from "./repo-files";

// The convention of docs/testing.md, held: a file named `*.test.ts` is in the unit project
// (`pnpm test:unit`, no PostgreSQL, Redis or built bundle), so it must not reach for them.
const NOT_UNIT = /\.(integration|process|e2e)\.test\.ts$/;
const NEEDS_SERVERS =
  /createTestWorld|createDatabase\(|createRedis\(|startHarness|start[A-Za-z]*World\(|startTestGateway|launchService|startServiceProcess|dist\/main\.js/;
const IMPORT_SPECIFIER = /(?:\bfrom|\bimport\(|\brequire\(|\bjest\.mock\()\s*"([^"]+)"/g;
const WORKSPACE_PACKAGE = /^(?:packages|services)\/[^/]+(?=\/|$)/;

const tsFiles = (dir: string, keep: (file: string) => boolean) =>
  filesUnder(dir, (file) => file.endsWith(".ts") && keep(file));

const isTest = (file: string) => file.endsWith(".test.ts");
const isTestOrSupport = (file: string) => isTest(file) || file.split(path.sep).includes("test");

/** `packages/x`, `services/x`, or `e2e`: the workspace package a path (relative to REPO_ROOT) is in. */
function packageOf(relative: string): string | undefined {
  if (relative === "e2e" || relative.startsWith("e2e/")) return "e2e";
  return WORKSPACE_PACKAGE.exec(relative)?.[0];
}

function packageName(packageDir: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, packageDir, "package.json"), "utf8"));
  return manifest.name as string;
}

/**
 * What a test (or its harness) should import instead of `specifier`, when `specifier` reaches
 * into another workspace package by its folders: that package's entry for its src/, its
 * package path (`@sms/x/test/harness`) for its test support.
 */
function crossPackageImport(file: string, specifier: string): string | undefined {
  const sourceSubpath = /^(@sms\/[^/]+)\/src(?:\/|$)/.exec(specifier);
  if (sourceSubpath) return `"${sourceSubpath[1]}" (its package entry)`;
  if (!specifier.startsWith(".")) return undefined;
  const target = path
    .relative(REPO_ROOT, path.resolve(path.dirname(file), specifier))
    .split(path.sep)
    .join("/");
  const targetPackage = packageOf(target);
  const ownPackage = packageOf(path.relative(REPO_ROOT, file).split(path.sep).join("/"));
  if (!targetPackage || targetPackage === ownPackage) return undefined;
  const name = packageName(targetPackage);
  const inside = target.slice(targetPackage.length + 1);
  if (inside === "src" || inside.startsWith("src/")) return `"${name}" (its package entry)`;
  return `"${name}/${inside}"`;
}

describe("the test convention", () => {
  const tops = ["packages", "services", "deploy", "e2e"].map((top) => path.join(REPO_ROOT, top));
  const all = tops.flatMap((top) => tsFiles(top, isTest));

  it("finds the workspace's tests", () => {
    expect(all.length).toBeGreaterThan(200);
  });

  it("a *.test.ts file starts no PostgreSQL, Redis or service: those are *.integration or *.process tests", () => {
    const misnamed = all
      .filter((file) => file !== __filename && !NOT_UNIT.test(file))
      .filter((file) => NEEDS_SERVERS.test(fs.readFileSync(file, "utf8")))
      .map((file) => path.relative(REPO_ROOT, file));
    expect(misnamed).toEqual([]);
  });

  it("a test or its harness imports another workspace package by its name, never by its folders", () => {
    const deepImports = tops
      .flatMap((top) => tsFiles(top, isTestOrSupport))
      .flatMap((file) =>
        [...fs.readFileSync(file, "utf8").matchAll(IMPORT_SPECIFIER)].flatMap(([, specifier]) => {
          const instead = crossPackageImport(file, specifier!);
          return instead
            ? [`${path.relative(REPO_ROOT, file)} imports "${specifier}": import ${instead} instead`]
            : [];
        }),
      );
    expect(deepImports).toEqual([]);
  });
});
