// Bundles each service's src/main.ts into services/<name>/dist/main.js (and the
// benchmarks into bench/dist), npm dependencies included: with pnpm's strict
// node_modules a service could not resolve its packages' dependencies at run time,
// and one self-contained file per service is also what the container image wants.
// The few modules that must stay on disk are external (see EXTERNAL).
import { build } from "esbuild";
import { copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");

// pg-native: optional native driver we don't use. swagger-ui-dist: static assets
// served from its folder. autocannon: spawns workers by file path (benchmarks only).
const EXTERNAL = ["pg-native", "swagger-ui-dist", "autocannon", "cpu-features", "ssh2"];

// Files read at run time from beside the code that uses them (Lua scripts): copied next to each bundle.
const runtimeAssets = readdirSync(path.join(root, "packages"), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => {
    const src = path.join(root, "packages", d.name, "src");
    return existsSync(src)
      ? readdirSync(src)
          .filter((f) => f.endsWith(".lua"))
          .map((f) => path.join(src, f))
      : [];
  });

const entries = [];
for (const name of readdirSync(path.join(root, "services"))) {
  const main = path.join(root, "services", name, "src", "main.ts");
  if (existsSync(main))
    entries.push({ entry: main, outdir: path.join(root, "services", name, "dist"), outfile: "main.js" });
}
const benchDir = path.join(root, "bench");
if (existsSync(benchDir)) {
  for (const file of readdirSync(benchDir).filter((f) => f.endsWith(".bench.ts"))) {
    entries.push({
      entry: path.join(benchDir, file),
      outdir: path.join(benchDir, "dist"),
      outfile: file.replace(/\.ts$/, ".js"),
    });
  }
}

const started = Date.now();
await Promise.all(
  entries.map(async ({ entry, outdir, outfile }) => {
    await build({
      entryPoints: [entry],
      outfile: path.join(outdir, outfile),
      bundle: true,
      platform: "node",
      target: "node20",
      format: "cjs",
      sourcemap: true,
      logLevel: "warning",
      external: EXTERNAL,
      // winston/logform and others compute some requires; keep esbuild quiet about what it can't see.
      logOverride: { "require-resolve-not-external": "silent", "empty-import-meta": "silent" },
      mainFields: ["module", "main"],
    });
    mkdirSync(outdir, { recursive: true });
    for (const asset of runtimeAssets) copyFileSync(asset, path.join(outdir, path.basename(asset)));
  }),
);
console.log(`built ${entries.length} bundles in ${Date.now() - started} ms`);
