import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

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

const WORKERS_ON_QUEUE_DEPTH = ["dispatcher", "webhook-delivery"];

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
    const { stdout } = await run(process.execPath, ["-e", renderSnippet("deploy/k8s/overlays/example")], {
      cwd: root,
    });
    const objects: any[] = JSON.parse(stdout);
    const gateway = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "api-gateway");
    expect(gateway.metadata.namespace).toBe("sms");
    expect(gateway.spec.template.spec.containers[0].image).toBe("registry.example.com/sms-platform:1.0.0");
    const scaler = objects.find((o) => o.kind === "ScaledObject" && o.metadata.name === "dispatcher");
    expect(scaler.spec.triggers[0].metadata.serverAddress).toBe(
      "http://prometheus-operated.monitoring.svc:9090",
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

function renderSnippet(dir: string): string {
  return `import("./deploy/check/render.mjs").then(({ renderKustomization }) =>
    console.log(JSON.stringify(renderKustomization(${JSON.stringify(dir)}))))`;
}
