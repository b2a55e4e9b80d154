import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { waitFor } from "./wait";

const ROOT = path.resolve(__dirname, "../../..");

/** A service's built bundle running as a child process, as an orchestrator runs it. */
export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** Resolves with how the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What it wrote on stderr (its errors), for a failing test's message. */
  stderr(): string;
  /** Waits until GET /readyz on `port` answers 200. */
  waitReady(port: number, timeoutMs?: number): Promise<void>;
  /** SIGKILL if still running (test clean-up). */
  kill(): void;
}

/** Outcome of {@link terminate}. */
export interface Termination {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** From the SIGTERM to the exit. */
  elapsedMs: number;
  /** Every /readyz status seen from the SIGTERM until the port closed (0: no answer). */
  readiness: number[];
  /**
   * /readyz answered 503 after the SIGTERM and never 200 after that. (A 200 before the first
   * 503 is a probe the process answered before the signal reached it.)
   */
  wentUnready: boolean;
}

/**
 * Starts services/<name>/dist/main.js (built by `node scripts/build.mjs`) with `env` on top of
 * the test process's environment.
 */
export function startServiceProcess(name: string, env: Record<string, string>): ServiceProcess {
  const bundle = path.join(ROOT, "services", name, "dist", "main.js");
  if (!existsSync(bundle))
    throw new Error(`${bundle} is missing: run \`node scripts/build.mjs\` (npm test does it first)`);
  const child = spawn(process.execPath, [bundle], {
    // SERVICE_LOGS=1 shows the service's logs (at LOG_LEVEL) while debugging a test.
    env: {
      ...process.env,
      LOG_LEVEL: "error",
      ...env,
      ...(process.env.SERVICE_LOGS ? { LOG_LEVEL: "info", LOG_SILENT: "false" } : {}),
    },
    stdio: ["ignore", process.env.SERVICE_LOGS ? "inherit" : "ignore", "pipe"],
  });
  // A test that dies before its clean-up must not leave the service running.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  child.once("exit", () => process.off("exit", killOnExit));
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => {
    if (stderr.length < 20_000) stderr += chunk;
    if (process.env.SERVICE_LOGS) process.stderr.write(chunk);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    name,
    child,
    exited,
    stderr: () => stderr,
    async waitReady(port, timeoutMs = 30_000) {
      await waitFor(
        async () => {
          if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}): ${stderr}`);
          return (await readyzStatus(port)) === 200;
        },
        { timeoutMs, intervalMs: 100, what: `${name} to be ready on ${port}` },
      );
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

/**
 * Sends SIGTERM and polls /readyz on `healthPort` until the process exits, so the test sees
 * whether readiness dropped before the port closed.
 */
export async function terminate(service: ServiceProcess, healthPort: number): Promise<Termination> {
  const readiness: number[] = [];
  const started = Date.now();
  service.child.kill("SIGTERM");
  let exited = false;
  const ending = service.exited.then((result) => {
    exited = true;
    return result;
  });
  while (!exited) {
    readiness.push(await readyzStatus(healthPort));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const { code, signal } = await ending;
  const firstUnready = readiness.indexOf(503);
  return {
    code,
    signal,
    elapsedMs: Date.now() - started,
    readiness,
    wentUnready: firstUnready >= 0 && !readiness.slice(firstUnready).includes(200),
  };
}

/** The status of GET /readyz, 0 when nothing answers within a second. */
export async function readyzStatus(port: number): Promise<number> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/readyz`, {
      signal: AbortSignal.timeout(1000),
      headers: { connection: "close" },
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}
