#!/usr/bin/env node
// pnpm deploy:check [kustomization dir …] — renders each kustomization (default: the
// base and every overlay) and checks it: every object against its Kubernetes/KEDA
// schema, and every service of the repository deployed with probes, resources, a
// PodDisruptionBudget and a scaler. Exit 1 with the problems listed when any fails.
// `--json` prints {dir: {objects, problems}} for the tests. `--image <tag>` also checks the
// manifests against that built image (pnpm test:containers does): deploy/check/image.mjs.
import { readdirSync } from "node:fs";
import path from "node:path";
import { renderKustomization } from "./check/render.mjs";
import { imageProblems } from "./check/image.mjs";
import { definedMetricNames, repositoryServices, schemaProblems, serviceProblems } from "./check/rules.mjs";

const root = process.env.CHECK_REPO_ROOT ?? path.resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const json = args.includes("--json");
const imageAt = args.indexOf("--image");
const image = imageAt >= 0 ? args.splice(imageAt, 2)[1] : undefined;
const k8s = path.join(import.meta.dirname, "k8s");
const dirs = args.filter((a) => a !== "--json");
if (dirs.length === 0) {
  dirs.push(path.join(k8s, "base"));
  for (const overlay of readdirSync(path.join(k8s, "overlays")))
    dirs.push(path.join(k8s, "overlays", overlay));
}

const services = repositoryServices(root);
const metricNames = definedMetricNames(root);
const report = {};
for (const dir of dirs) {
  let objects = [];
  const problems = [];
  try {
    objects = renderKustomization(dir);
    problems.push(...(await schemaProblems(objects)), ...serviceProblems(objects, services, metricNames));
    if (image) problems.push(...imageProblems(objects, image));
  } catch (error) {
    problems.push(error.message);
  }
  report[path.relative(root, dir)] = {
    objects: objects.map((o) => `${o.kind}/${o.metadata.name}`),
    problems,
  };
}

const failed = Object.values(report).some((r) => r.problems.length > 0);
if (json) console.log(JSON.stringify(report, null, 2));
else {
  for (const [dir, { objects, problems }] of Object.entries(report)) {
    console.log(`${dir}: ${objects.length} objects, ${problems.length} problem(s)`);
    for (const problem of problems) console.log(`  - ${problem}`);
  }
  console.log(`services checked: ${services.map((s) => s.name).join(", ")}`);
  if (image) console.log(`against the image ${image}: its entrypoint, the services it carries, its user`);
}
process.exit(failed ? 1 : 0);
