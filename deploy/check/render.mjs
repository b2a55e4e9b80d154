// Renders a kustomization the way `kubectl kustomize` would, for the subset of
// kustomize this repository uses: resources (files and directories), namespace,
// labels, images, configMapGenerator with behavior merge, and JSON 6902 patches
// with a target. No kustomize binary is available on the build machines; anything
// outside the subset is an error, never silently ignored, so a manifest that uses a
// feature this renderer does not know fails the check instead of passing unchecked.
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";

const KNOWN_FIELDS = new Set([
  "apiVersion",
  "kind",
  "resources",
  "namespace",
  "labels",
  "images",
  "configMapGenerator",
  "patches",
]);

export function readYamlDocuments(file) {
  return parseAllDocuments(readFileSync(file, "utf8"), { prettyErrors: true })
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0].message}`);
      return doc.toJS();
    })
    .filter((object) => object !== null && object !== undefined);
}

/** Every object of the kustomization in `dir`, each tagged with the file it came from. */
export function renderKustomization(dir) {
  const file = path.join(dir, "kustomization.yaml");
  if (!existsSync(file)) throw new Error(`${dir}: no kustomization.yaml`);
  const [kustomization] = readYamlDocuments(file);
  for (const field of Object.keys(kustomization)) {
    if (!KNOWN_FIELDS.has(field)) throw new Error(`${file}: "${field}" is not supported by this check`);
  }
  let objects = [];
  for (const resource of kustomization.resources ?? []) {
    const target = path.resolve(dir, resource);
    if (!existsSync(target)) throw new Error(`${file}: resource ${resource} does not exist`);
    if (statSync(target).isDirectory()) objects.push(...renderKustomization(target));
    else
      objects.push(
        ...readYamlDocuments(target).map((object) => tag(object, path.relative(process.cwd(), target))),
      );
  }
  for (const generator of kustomization.configMapGenerator ?? [])
    objects = mergeConfigMap(objects, generator, file);
  for (const { pairs, includeSelectors } of kustomization.labels ?? []) {
    if (includeSelectors)
      throw new Error(`${file}: labels with includeSelectors are not supported by this check`);
    for (const object of objects) object.metadata.labels = { ...object.metadata.labels, ...pairs };
  }
  for (const image of kustomization.images ?? []) replaceImages(objects, image);
  for (const patch of kustomization.patches ?? []) applyPatch(objects, patch, file);
  if (kustomization.namespace) {
    for (const object of objects)
      if (object.kind !== "Namespace") object.metadata.namespace = kustomization.namespace;
  }
  return objects;
}

function tag(object, source) {
  Object.defineProperty(object, "source", { value: source, enumerable: false });
  return object;
}

function mergeConfigMap(objects, generator, file) {
  if (generator.behavior !== "merge")
    throw new Error(`${file}: only configMapGenerator behavior merge is supported`);
  const existing = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === generator.name);
  if (!existing)
    throw new Error(`${file}: configMapGenerator merges into ${generator.name}, which no resource defines`);
  for (const literal of generator.literals ?? []) {
    const at = literal.indexOf("=");
    if (at < 1) throw new Error(`${file}: literal "${literal}" is not KEY=value`);
    existing.data = { ...existing.data, [literal.slice(0, at)]: literal.slice(at + 1) };
  }
  return objects;
}

function containersOf(object) {
  const pod = object.kind === "Job" || object.kind === "Deployment" ? object.spec?.template?.spec : undefined;
  return pod ? [...(pod.initContainers ?? []), ...(pod.containers ?? [])] : [];
}

function replaceImages(objects, { name, newName, newTag }) {
  for (const container of objects.flatMap(containersOf)) {
    const [image] = container.image.split(":");
    if (image === name) container.image = `${newName ?? name}${newTag ? `:${newTag}` : ""}`;
  }
}

function matchesTarget(object, target) {
  const group = object.apiVersion.includes("/") ? object.apiVersion.split("/")[0] : "";
  return (
    (target.kind === undefined || target.kind === object.kind) &&
    (target.name === undefined || target.name === object.metadata.name) &&
    (target.group === undefined || target.group === group)
  );
}

function applyPatch(objects, { target, patch }, file) {
  if (!target) throw new Error(`${file}: a patch without a target is not supported by this check`);
  const operations = readOperations(patch, file);
  const matched = objects.filter((object) => matchesTarget(object, target));
  if (matched.length === 0)
    throw new Error(`${file}: patch target ${JSON.stringify(target)} matches nothing`);
  for (const object of matched) {
    for (const { op, path: pointer, value } of operations) {
      if (op !== "replace" && op !== "add")
        throw new Error(`${file}: patch op ${op} is not supported by this check`);
      const keys = pointer.split("/").slice(1);
      const last = keys.pop();
      let node = object;
      for (const key of keys) {
        node = node?.[Array.isArray(node) ? Number(key) : key];
        if (node === undefined)
          throw new Error(`${file}: ${pointer} does not exist in ${object.kind}/${object.metadata.name}`);
      }
      if (op === "replace" && !(last in node))
        throw new Error(`${file}: ${pointer} does not exist in ${object.kind}/${object.metadata.name}`);
      node[last] = value;
    }
  }
}

function readOperations(patch, file) {
  const [operations] = parseAllDocuments(patch).map((doc) => doc.toJS());
  if (!Array.isArray(operations))
    throw new Error(`${file}: only JSON 6902 patches (a list of operations) are supported`);
  return operations;
}
