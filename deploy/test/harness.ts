import { execFile, execFileSync, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";

export const ROOT = path.resolve(__dirname, "../..");
export const IMAGE = "sms-platform:local";
/** The local stand-ins deploy/test/base-images.sh builds (pnpm test:containers sets these). */
export const STAND_INS = {
  NODE_IMAGE: process.env.NODE_IMAGE ?? "local/node:24-bookworm-slim",
  POSTGRES_IMAGE: process.env.POSTGRES_IMAGE ?? "local/postgres:15-bookworm",
  REDIS_IMAGE: process.env.REDIS_IMAGE ?? "local/redis:7-bookworm",
};
const run = promisify(execFile);

/** `docker compose` (v2) where the plugin is installed, else Debian's `docker-compose` (v1). */
export const COMPOSE: string[] =
  spawnSync("docker", ["compose", "version"], { stdio: "ignore" }).status === 0
    ? ["docker", "compose"]
    : ["docker-compose"];

/** One compose project of docker-compose.yml plus the test's additions, with its own environment. */
export class ComposeProject {
  readonly env: NodeJS.ProcessEnv;
  constructor(
    readonly name: string,
    env: Record<string, string | undefined>,
  ) {
    this.env = { ...process.env, ...STAND_INS, COMPOSE_PROJECT_NAME: name, ...env };
    for (const [key, value] of Object.entries(env)) if (value === undefined) delete this.env[key];
  }

  private args(args: string[]): string[] {
    // Not the checkout's .env (npm start writes one): with it, the missing-key test found a key.
    return [
      ...COMPOSE.slice(1),
      "--env-file",
      "deploy/test/no.env",
      "-f",
      "docker-compose.yml",
      "-f",
      "deploy/test/compose.test.yml",
      ...args,
    ];
  }

  /** Runs a compose command; resolves with its output, rejects with it on a non-zero exit. */
  async compose(...args: string[]): Promise<string> {
    const { stdout } = await run(COMPOSE[0]!, this.args(args), {
      cwd: ROOT,
      env: this.env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  }

  /** The exit status and stderr of a compose command that may fail. */
  composeStatus(...args: string[]): { status: number | null; stderr: string } {
    const result = spawnSync(COMPOSE[0]!, this.args(args), { cwd: ROOT, env: this.env, encoding: "utf8" });
    return { status: result.status, stderr: result.stderr };
  }

  /** The host port a service's container port is published on (loopback, chosen by Docker). */
  async port(service: string, containerPort: number): Promise<number> {
    const out = (await this.compose("port", service, String(containerPort))).trim();
    return Number(out.slice(out.lastIndexOf(":") + 1));
  }

  async containerId(service: string): Promise<string> {
    return (await this.compose("ps", "-q", service)).trim();
  }

  /**
   * Waits until every long-running container is healthy (or, without a healthcheck, running)
   * and every one-shot step (migrate, seed) has exited 0; fails at once on a failed step.
   */
  async waitHealthy(oneShot: string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = "";
    while (Date.now() < deadline) {
      const ids = (await this.compose("ps", "-q")).split("\n").filter(Boolean);
      const { stdout } = await run("docker", [
        "inspect",
        "-f",
        '{{index .Config.Labels "com.docker.compose.service"}} {{.State.Status}} {{.State.ExitCode}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}',
        ...ids,
      ]);
      const states = stdout
        .trim()
        .split("\n")
        .map((line) => line.split(" "));
      const waiting = states.filter(([service, status, exitCode, health]) => {
        if (oneShot.includes(service!)) {
          if (status === "exited" && exitCode !== "0") throw new Error(`${service} exited with ${exitCode}`);
          return status !== "exited";
        }
        return status !== "running" || (health !== "none" && health !== "healthy");
      });
      if (waiting.length === 0 && states.length > 0) return;
      last = waiting.map((s) => s.join(" ")).join(", ");
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    throw new Error(`not healthy within ${timeoutMs} ms: ${last}`);
  }

  /** The last lines of every service's log, for a failure's diagnosis. */
  async logs(lines = 40): Promise<string> {
    return this.compose("logs", "--no-color", "--tail", String(lines)).catch((error: Error) => error.message);
  }
}

/** Fresh deployment secrets, as `openssl rand -base64 32` makes them. */
export function freshSecrets(): Record<string, string> {
  const opsPassword = crypto.randomBytes(12).toString("hex");
  const hash = execFileSync("docker", ["run", "--rm", "-i", IMAGE, "ops-console", "hash-password"], {
    input: opsPassword,
    encoding: "utf8",
  }).trim();
  return {
    SECRET_ENCRYPTION_KEY: crypto.randomBytes(32).toString("base64"),
    OTP_HMAC_SECRET: crypto.randomBytes(32).toString("base64"),
    OPS_CONSOLE_PASSWORD_HASH: hash,
  };
}
