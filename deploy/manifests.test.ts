import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { lanes } from "../scripts/lanes.mjs";

const run = promisify(execFile);
const root = path.resolve(__dirname, "..");
const checker = path.join(__dirname, "check-manifests.mjs");

type Report = Record<string, { objects: string[]; problems: string[] }>;

async function check(...dirs: string[]): Promise<{ code: number; report: Report }> {
  try {
    const { stdout } = await run(process.execPath, [checker, "--json", ...dirs], { cwd: root });
    return { code: 0, report: JSON.parse(stdout) };
  } catch (error: any) {
    return { code: error.code, report: JSON.parse(error.stdout) };
  }
}

const WORKERS_ON_QUEUE_DEPTH = ["dispatcher", "dispatcher-high", "webhook-delivery", "webhook-delivery-high"];

/**
 * The services that work classes of jobs, each class on a queue of its own: the setting that
 * chooses them (its default, every class) and each class's queue (@sms/queues' names.ts).
 */
const CLASSED_SERVICES = [
  {
    service: "dispatcher",
    setting: "DISPATCH_CLASSES",
    queues: { high: "sms.dispatch.high", normal: "sms.dispatch.normal", bulk: "sms.dispatch.bulk" },
  },
  {
    service: "webhook-delivery",
    setting: "WEBHOOK_CLASSES",
    queues: { high: "webhook.deliver.high", standard: "webhook.deliver" },
  },
] as const;

describe("the Kubernetes manifests (deploy/k8s)", () => {
  it("render, match the Kubernetes and KEDA schemas and deploy every service properly, base and overlays", async () => {
    const { code, report } = await check();
    expect(Object.keys(report).sort()).toEqual(["deploy/k8s/base", "deploy/k8s/overlays/example"]);
    for (const { problems } of Object.values(report)) expect(problems).toEqual([]);
    expect(code).toBe(0);
    const base = report["deploy/k8s/base"]!.objects;
    for (const worker of WORKERS_ON_QUEUE_DEPTH) expect(base).toContain(`ScaledObject/${worker}`);
    expect(base).toContain("HorizontalPodAutoscaler/api-gateway");
    expect(base).toContain("Job/sms-migrate");
  }, 30_000);

  it("the example overlay sets the namespace, the image and KEDA's Prometheus address", async () => {
    const objects = await render("deploy/k8s/overlays/example");
    const gateway = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "api-gateway");
    expect(gateway.metadata.namespace).toBe("sms");
    expect(gateway.spec.template.spec.containers[0].image).toBe("registry.example.com/sms-platform:1.0.0");
    const scaler = objects.find((o) => o.kind === "ScaledObject" && o.metadata.name === "dispatcher");
    expect(scaler.spec.triggers[0].metadata.serverAddress).toBe(
      "http://prometheus-operated.monitoring.svc:9090",
    );
  });

  describe("lanes (scripts/lanes.mjs): a service in Deployments of its own", () => {
    let objects: any[];
    beforeAll(async () => {
      objects = await render("deploy/k8s/base");
    });
    const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);
    const deployment = (name: string) => ofKind("Deployment").find((d) => d.metadata.name === name);
    const container = (name: string) =>
      deployment(name)?.spec.template.spec.containers.find(
        (c: any) => c.args?.[0] === (lanes[name]?.service ?? name),
      );
    const envOf = (c: any): Record<string, string> =>
      Object.fromEntries((c?.env ?? []).map((e: any) => [e.name, e.value]));

    // deploy:check checks each service's Deployment (probes on its port, scraping, resources); a
    // lane is checked here against its service's.
    it.each(Object.entries(lanes))(
      "runs the lane %s as its service, with the service's probes, ports and scraping, and its own settings",
      (name, lane) => {
        const own = container(name);
        const theirs = container(lane.service);
        expect(own).toBeDefined();
        expect(own.args).toEqual(theirs.args);
        expect(envOf(own)).toMatchObject(lane.env ?? {});
        expect(envOf(own).PORT).toBe(envOf(theirs).PORT);
        for (const field of ["ports", "readinessProbe", "livenessProbe", "startupProbe", "securityContext"])
          expect(own[field]).toEqual(theirs[field]);
        expect(own.resources.requests).toEqual({ cpu: expect.anything(), memory: expect.anything() });
        expect(own.resources.limits.memory).toBeDefined();
        expect(deployment(name).spec.template.metadata.annotations).toEqual(
          deployment(lane.service).spec.template.metadata.annotations,
        );
        const scalers = [...ofKind("ScaledObject"), ...ofKind("HorizontalPodAutoscaler")].filter(
          (s) => s.spec.scaleTargetRef.name === name,
        );
        expect(scalers).toHaveLength(1);
        for (const [other, env] of Object.entries(lane.narrows ?? {}))
          expect(envOf(container(other))).toMatchObject(env);
      },
    );

    it("each Deployment's selector and each PodDisruptionBudget select the pods of one Deployment", () => {
      const pods = ofKind("Deployment").map((d) => [d.metadata.name, d.spec.template.metadata.labels]);
      const selected = (selector: any) =>
        pods
          .filter(([, labels]) =>
            Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value),
          )
          .map(([name]) => name);
      for (const d of ofKind("Deployment")) expect(selected(d.spec.selector)).toEqual([d.metadata.name]);
      for (const pdb of ofKind("PodDisruptionBudget")) expect(selected(pdb.spec.selector)).toHaveLength(1);
    });

    it.each(CLASSED_SERVICES)(
      "each class of $service is worked by one Deployment, whose scaler counts its queues and no other",
      ({ service, setting, queues }) => {
        const all = Object.keys(queues);
        const worker = new Map<string, string>();
        const deployments = ofKind("Deployment").filter((d) =>
          d.spec.template.spec.containers.some((c: any) => c.args?.[0] === service),
        );
        for (const d of deployments) {
          const name: string = d.metadata.name;
          const classes = (envOf(container(name))[setting] ?? all.join(",")).split(",").map((c) => c.trim());
          for (const c of classes) {
            expect(worker.get(c)).toBeUndefined();
            worker.set(c, name);
          }
          const queries = ofKind("ScaledObject")
            .filter((s) => s.spec.scaleTargetRef.name === name)
            .flatMap((s) => s.spec.triggers.map((t: any) => t.metadata.query as string));
          expect(queries).toHaveLength(1);
          const counted = all.filter((c) => countsQueue(queries[0]!, queues[c as keyof typeof queues]));
          expect(counted.sort()).toEqual([...classes].sort());
        }
        expect([...worker.keys()].sort()).toEqual([...all].sort());
      },
    );
  });

  describe("catch a broken manifest", () => {
    let copy: string;
    beforeEach(() => {
      copy = mkdtempSync(path.join(tmpdir(), "k8s-"));
      cpSync(path.join(__dirname, "k8s"), copy, { recursive: true });
    });
    afterEach(() => rmSync(copy, { recursive: true, force: true }));

    const edit = (file: string, change: (text: string) => string) => {
      const target = path.join(copy, "base", file);
      writeFileSync(target, change(readFileSync(target, "utf8")));
    };

    it("a missing probe, PodDisruptionBudget or scaler is named", async () => {
      edit("dispatcher.yaml", (text) => text.replace(/readinessProbe:/, "notAProbe:"));
      edit("webhook-delivery.yaml", (text) => text.replace(/kind: PodDisruptionBudget/, "kind: Nope"));
      edit("otp-sweeper.yaml", (text) => text.split("\n---\napiVersion: autoscaling/v2")[0]!);
      const { code, report } = await check(path.join(copy, "base"));
      expect(code).toBe(1);
      const problems = Object.values(report)[0]!.problems.join("\n");
      expect(problems).toMatch(/dispatcher: no readinessProbe/);
      expect(problems).toMatch(/webhook-delivery: no PodDisruptionBudget/);
      expect(problems).toMatch(/otp-sweeper: no HorizontalPodAutoscaler or ScaledObject/);
    });

    it("a service behind the ingress that does not trust its proxy hop is named", async () => {
      edit("dashboard.yaml", (text) => text.replace(/\n.*TRUST_PROXY_HOPS.*/, ""));
      const { code, report } = await check(path.join(copy, "base"));
      expect(code).toBe(1);
      expect(Object.values(report)[0]!.problems.join("\n")).toMatch(/dashboard: TRUST_PROXY_HOPS not set/);
    });

    it("a value of the wrong type fails the schema", async () => {
      edit("api-gateway.yaml", (text) => text.replace("containerPort: 3000", 'containerPort: "3000"'));
      const { code, report } = await check(path.join(copy, "base"));
      expect(code).toBe(1);
      expect(Object.values(report)[0]!.problems.join("\n")).toMatch(
        /Deployment\/api-gateway.*containerPort must be integer/,
      );
    });

    it("a probe on another port than the service listens on is named", async () => {
      edit("scheduler.yaml", (text) => text.replace('value: "3010"', 'value: "3011"'));
      const { report } = await check(path.join(copy, "base"));
      expect(Object.values(report)[0]!.problems.join("\n")).toMatch(
        /scheduler: readinessProbe port is not the service.s health port 3011/,
      );
    });

    it("the gateway probed or scraped on its public port, not its internal health port, is named", async () => {
      edit("api-gateway.yaml", (text) =>
        text
          .replace("path: /readyz, port: health", "path: /readyz, port: http")
          .replace('port: "3001"', 'port: "3000"'),
      );
      const problems = Object.values((await check(path.join(copy, "base"))).report)[0]!.problems.join("\n");
      expect(problems).toMatch(/api-gateway: readinessProbe port is not the service.s health port 3001/);
      expect(problems).toMatch(
        /api-gateway: prometheus.io\/port 3000 is not where \/metrics is served \(3001\)/,
      );
    });

    it("a kustomize feature the renderer does not know is an error, not a silent pass", async () => {
      edit("kustomization.yaml", (text) => `${text}replicas:\n  - { name: dispatcher, count: 3 }\n`);
      const { code, report } = await check(path.join(copy, "base"));
      expect(code).toBe(1);
      expect(Object.values(report)[0]!.problems.join("\n")).toMatch(/"replicas" is not supported/);
    });
  });
});

async function render(dir: string): Promise<any[]> {
  const { stdout } = await run(process.execPath, ["-e", renderSnippet(dir)], { cwd: root });
  return JSON.parse(stdout);
}

/** Whether a PromQL query's queue matchers (queue="…" or queue=~"…", anchored as PromQL anchors them) take this queue. */
function countsQueue(query: string, queue: string): boolean {
  const matchers = [...query.matchAll(/\bqueue(=~|=)"((?:[^"\\]|\\.)*)"/g)];
  if (matchers.length === 0) throw new Error(`no queue matcher in ${query}`);
  return matchers.some(([, op, quoted]) => {
    const value = quoted!.replace(/\\(.)/g, "$1");
    return op === "=" ? value === queue : new RegExp(`^(?:${value})$`).test(queue);
  });
}

function renderSnippet(dir: string): string {
  return `import("./deploy/check/render.mjs").then(({ renderKustomization }) =>
    console.log(JSON.stringify(renderKustomization(${JSON.stringify(dir)}))))`;
}
