import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { createTestWorld, freePort, waitFor, type TestWorld } from "@sms/testing";

const BUNDLE = path.resolve(__dirname, "../dist/main.js");

/** The built service as run-all and a container run it: start, JSON logs, SIGTERM, exit code. */
describe("the otp-sweeper process (dist/main.js)", () => {
  let world: TestWorld;
  beforeAll(async () => {
    if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`pnpm build\` first`);
    world = await createTestWorld();
  });
  afterAll(() => world?.destroy());

  function run(env: Record<string, string>) {
    const child = spawn(process.execPath, [BUNDLE], {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    return { child, exited, output: () => ({ stdout, stderr }) };
  }

  it("refuses to start with a bad setting, naming it", async () => {
    const proc = run({ ...world.env, OTP_SWEEP_INTERVAL_MS: "soon", PORT: "0" });
    expect(await proc.exited).toBe(1);
    expect(proc.output().stderr).toMatch(/OTP_SWEEP_INTERVAL_MS is invalid/);
  });

  it("serves /readyz, logs JSON, and on SIGTERM stops with exit 0", async () => {
    const port = await freePort();
    const proc = run({ ...world.env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "info" });
    try {
      await waitFor(
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200,
        { what: "the service ready" },
      );
      proc.child.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      const lines = proc
        .output()
        .stdout.split("\n")
        .filter((line) => line.trim());
      const entries = lines.map((line) => JSON.parse(line) as { message: string });
      expect(entries.map((e) => e.message)).toEqual(
        expect.arrayContaining(["otp-sweeper started", "shutting down", "otp-sweeper stopped"]),
      );
    } finally {
      proc.child.kill("SIGKILL");
    }
  });
});
