import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { lanes } from "../scripts/lanes.mjs";

const root = path.resolve(__dirname, "..");
const compose = parse(readFileSync(path.join(root, "docker-compose.yml"), "utf8"), { merge: true });
const deployed = readdirSync(path.join(root, "services")).filter(
  (name) => name !== "admin-cli" && existsSync(path.join(root, "services", name, "src", "main.ts")),
);

/** Each compose service that runs a service of the repository, and the service it runs. */
const containers: [string, string][] = [
  ...deployed.map((name): [string, string] => [name, name]),
  ...Object.entries(lanes).map(([lane, { service }]): [string, string] => [lane, service]),
];

/**
 * The port a service answers /readyz on when nothing is set: HEALTH_PORT where it has one (the
 * gateway, the dashboard), the carrier simulator's HTTP port, else PORT.
 */
function defaultHealthPort(name: string): string {
  const config = readFileSync(path.join(root, "services", name, "src", "config.ts"), "utf8");
  const match =
    /\bHEALTH_PORT: envInt\((\d+)/.exec(config) ??
    /\b(?:CARRIER_SIM_HTTP_PORT|PORT): envInt\((\d+)/.exec(config);
  if (!match) throw new Error(`no default port in services/${name}/src/config.ts`);
  return match[1]!;
}

// No Docker engine on these machines: what can be checked without one is checked here.
describe("docker-compose.yml", () => {
  it.each(containers)(
    "runs %s (the service %s) from the one image, with a healthcheck on the /readyz of its health port",
    (name, runs) => {
      const service = compose.services[name];
      expect(service).toBeDefined();
      expect(service.image).toBe("sms-platform:local");
      expect(service.command).toEqual([runs]);
      const port = service.environment?.HEALTH_PORT ?? service.environment?.PORT ?? defaultHealthPort(runs);
      expect(service.healthcheck.test.join(" ")).toContain(`127.0.0.1:${port}/readyz`);
    },
  );

  it.each(Object.entries(lanes))(
    "runs the lane %s with its settings, started as its service is, and narrows the services beside it",
    (name, lane) => {
      expect(compose.services[name].environment).toMatchObject(lane.env ?? {});
      expect(compose.services[name].depends_on).toEqual(compose.services[lane.service].depends_on);
      for (const [other, env] of Object.entries(lane.narrows ?? {}))
        expect(compose.services[other].environment).toMatchObject(env);
    },
  );

  it("applies the migrations before any service starts, after PostgreSQL is healthy", () => {
    expect(compose.services.migrate.command).toEqual(["migrate"]);
    expect(compose.services.migrate.depends_on.postgres.condition).toBe("service_healthy");
    for (const [name] of containers) {
      expect(compose.services[name].depends_on.migrate.condition).toBe("service_completed_successfully");
    }
  });

  it("points the demo's carrier at the simulator's container", () => {
    expect(compose.services.seed.command).toEqual(["admin", "demo"]);
    expect(compose.services.seed.environment.SIMULATOR_SMPP_HOST).toBe("carrier-simulator");
  });

  it("has PostgreSQL and Redis with healthchecks, and every image entry the entrypoint knows", () => {
    expect(compose.services.postgres.healthcheck).toBeDefined();
    expect(compose.services.redis.healthcheck).toBeDefined();
    const entrypoint = readFileSync(path.join(root, "scripts", "container-entrypoint.sh"), "utf8");
    expect(entrypoint).toMatch(/services\/\$service\/dist\/main\.js" "\$@"/);
  });
});
