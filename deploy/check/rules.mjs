// What every rendered set of manifests must satisfy: each object valid against its
// Kubernetes (or KEDA) schema, and each service of the repository deployed the way
// the operator docs promise: a Deployment running that service, probes on the port
// the service listens on, resources, a PodDisruptionBudget and a scaler.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { lanes } from "../../scripts/lanes.mjs";
import path from "node:path";

/** Services that are deliberately not scaled: why, in one line each (the docs repeat it). */
export const UNSCALED = {
  "ops-console": "an operator's page: one replica, never on a hot path",
};
/**
 * Served through the ingress: each must trust its one proxy hop, or every client shares the
 * ingress's address (one sign-in lockout and one rate-limit bucket for everybody).
 */
export const BEHIND_INGRESS = new Set(["api-gateway", "dashboard"]);
/** Not deployed as a long-running service: the admin CLI runs as a one-off (`admin …`). */
const NOT_DEPLOYED = new Set(["admin-cli", "carrier-simulator"]);

async function modelFor(apiVersion, kind) {
  const module = apiVersion.startsWith("keda.sh/")
    ? `@kubernetes-models/keda/${apiVersion}/${kind}`
    : `kubernetes-models/${apiVersion}/${kind}`;
  try {
    return (await import(module))[kind];
  } catch {
    return undefined;
  }
}

export async function schemaProblems(objects) {
  const problems = [];
  for (const object of objects) {
    const where = `${object.kind}/${object.metadata?.name} (${object.source})`;
    const Model = await modelFor(object.apiVersion, object.kind);
    if (!Model) {
      problems.push(`${where}: no schema known for ${object.apiVersion} ${object.kind}`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      problems.push(`${where}: ${error.message}`);
    }
  }
  return problems;
}

/**
 * The services of the repository (services/<name>/src/main.ts) and the ports each listens on by
 * default, then the lanes of scripts/lanes.mjs (another Deployment of a service, its `command`).
 */
export function repositoryServices(root) {
  const services = ownServices(root);
  const laneEntries = Object.entries(lanes).flatMap(([name, lane]) => {
    const service = services.find((s) => s.name === lane.service);
    return service ? [{ ...service, name, command: lane.service }] : [];
  });
  return [...services, ...laneEntries];
}

function ownServices(root) {
  const servicesDir = path.join(root, "services");
  return readdirSync(servicesDir)
    .filter((name) => !NOT_DEPLOYED.has(name) && existsSync(path.join(servicesDir, name, "src", "main.ts")))
    .map((name) => {
      const config = path.join(servicesDir, name, "src", "config.ts");
      const source = existsSync(config) ? readFileSync(config, "utf8") : "";
      const match = /\bPORT: envInt\((\d+)/.exec(source);
      // The gateway and the dashboard serve /readyz and /metrics on an internal port of their own.
      const health = /\bHEALTH_PORT: envInt\((\d+)/.exec(source);
      return {
        name,
        defaultPort: match ? Number(match[1]) : undefined,
        defaultHealthPort: health ? Number(health[1]) : undefined,
      };
    });
}

/**
 * Metric names defined in the shared metrics package or in a service (metrics used by one
 * service live in it), read from their sources, for the scalers' queries.
 */
export function definedMetricNames(root) {
  const servicesDir = path.join(root, "services");
  const dirs = [
    path.join(root, "packages", "metrics", "src"),
    ...(existsSync(servicesDir)
      ? readdirSync(servicesDir).map((name) => path.join(servicesDir, name, "src"))
      : []),
  ].filter((dir) => existsSync(dir));
  const names = new Set();
  for (const dir of dirs)
    for (const file of readdirSync(dir, { recursive: true }).filter(
      (f) => f.endsWith(".ts") && !f.endsWith(".test.ts"),
    )) {
      for (const match of readFileSync(path.join(dir, file), "utf8").matchAll(/["'`](sms_[a-z0-9_]+)["'`]/g))
        names.add(match[1]);
    }
  return names;
}

function selects(selector, labels) {
  return Object.entries(selector?.matchLabels ?? {}).every(([key, value]) => labels?.[key] === value);
}

function probeProblems(name, container, port) {
  const problems = [];
  const namedPort = (ref) =>
    typeof ref === "number" ? ref : container.ports?.find((p) => p.name === ref)?.containerPort;
  for (const [probe, wantedPath] of [
    ["readinessProbe", "/readyz"],
    ["livenessProbe", "/healthz"],
  ]) {
    const httpGet = container[probe]?.httpGet;
    if (!httpGet) problems.push(`${name}: no ${probe}`);
    else if (httpGet.path !== wantedPath)
      problems.push(`${name}: ${probe} path ${httpGet.path}, expected ${wantedPath}`);
    else if (namedPort(httpGet.port) !== port)
      problems.push(`${name}: ${probe} port is not the service's health port ${port}`);
  }
  return problems;
}

function resourceProblems(name, container) {
  const { requests = {}, limits = {} } = container.resources ?? {};
  const missing = [
    ["requests.cpu", requests.cpu],
    ["requests.memory", requests.memory],
    ["limits.memory", limits.memory],
  ].filter(([, value]) => value === undefined);
  return missing.map(([field]) => `${name}: no resources.${field}`);
}

export function serviceProblems(objects, services, metricNames) {
  const problems = [];
  const byKind = (kind) => objects.filter((o) => o.kind === kind);
  for (const { name, command = name, defaultPort, defaultHealthPort } of services) {
    const deployment = byKind("Deployment").find((d) => d.metadata.name === name);
    if (!deployment) {
      problems.push(`${name}: no Deployment`);
      continue;
    }
    const container = deployment.spec.template.spec.containers.find((c) => c.args?.[0] === command);
    if (!container) {
      problems.push(`${name}: no container runs the service (args ["${command}"])`);
      continue;
    }
    const portEnv = container.env?.find((e) => e.name === "PORT")?.value;
    const port = Number(portEnv ?? defaultPort);
    if (defaultPort !== undefined && port !== defaultPort && portEnv === undefined)
      problems.push(`${name}: PORT not set and the default ${defaultPort} is not the probed port`);
    const healthEnv = container.env?.find((e) => e.name === "HEALTH_PORT")?.value;
    const healthPort = defaultHealthPort === undefined ? port : Number(healthEnv ?? defaultHealthPort);
    problems.push(...probeProblems(name, container, healthPort));
    const scraped = deployment.spec.template.metadata.annotations?.["prometheus.io/port"];
    if (scraped !== undefined && Number(scraped) !== healthPort)
      problems.push(`${name}: prometheus.io/port ${scraped} is not where /metrics is served (${healthPort})`);
    const hops = container.env?.find((e) => e.name === "TRUST_PROXY_HOPS")?.value;
    if (BEHIND_INGRESS.has(name) && !(Number(hops) >= 1))
      problems.push(
        `${name}: TRUST_PROXY_HOPS not set (behind the ingress every client would share one address)`,
      );
    problems.push(...resourceProblems(name, container));
    const podLabels = deployment.spec.template.metadata.labels;
    if (!selects(deployment.spec.selector, podLabels))
      problems.push(`${name}: selector does not match its pods`);
    if (!byKind("PodDisruptionBudget").some((pdb) => selects(pdb.spec.selector, podLabels)))
      problems.push(`${name}: no PodDisruptionBudget`);
    const scalers = [...byKind("HorizontalPodAutoscaler"), ...byKind("ScaledObject")].filter(
      (s) => s.spec.scaleTargetRef.name === name,
    );
    if (scalers.length === 0 && !UNSCALED[name])
      problems.push(`${name}: no HorizontalPodAutoscaler or ScaledObject`);
    if (scalers.length > 1) problems.push(`${name}: more than one scaler (HPA and KEDA would fight)`);
    for (const trigger of scalers.flatMap((s) => s.spec.triggers ?? [])) {
      for (const [metric] of (trigger.metadata?.query ?? "").matchAll(/\bsms_[a-z0-9_]+/g)) {
        if (!metricNames.has(metric))
          problems.push(`${name}: its scaler queries ${metric}, which no service exports`);
      }
    }
  }
  const migrate = byKind("Job").find((job) =>
    job.spec.template.spec.containers.some((c) => c.args?.[0] === "migrate"),
  );
  if (!migrate) problems.push('no migration Job (a container with args ["migrate"])');
  return problems;
}
