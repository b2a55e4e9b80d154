import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { once } from "node:events";
import net from "node:net";
import path from "node:path";
import { WITH_HEALTH_PORT } from "./health-port";
import { freePort } from "./servers";
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
  /** The /readyz answers from just before the SIGTERM until the process closed the connection, in order. */
  readiness: number[];
  /**
   * /readyz answered 503 after the SIGTERM and never 200 after that. (A 200 before the first
   * 503 is a probe the process answered before the signal reached it.)
   */
  wentUnready: boolean;
  /** Some connection got a 200 after its 503: ready again after the stop began. */
  readyAgain: boolean;
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
    // An IPC channel the service watches: it stops when this process is gone, however it went
    // (a worker killed after a failed test runs no exit handler). Unreferenced, so it keeps
    // neither process alive.
    stdio: ["ignore", process.env.SERVICE_LOGS ? "inherit" : "ignore", "pipe", "ipc"],
  });
  child.channel?.unref();
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

const PROBE_CONNECTIONS = 16;

/** A kept-alive connection to /readyz with at most one question open. */
class ReadyzProbe {
  readonly answers: number[] = [];
  private received = "";
  private waiting = false;
  readonly closed: Promise<unknown>;

  constructor(private readonly socket: net.Socket) {
    socket.setEncoding("latin1");
    socket.on("error", () => undefined);
    socket.on("data", (chunk: string) => {
      this.received += chunk;
      // Status lines of complete answers (bodies are small JSON: no line of theirs starts with HTTP/).
      for (const match of this.received.matchAll(/^HTTP\/1\.1 (\d{3}) /gm))
        this.answers.push(Number(match[1]));
      if (this.received.includes("HTTP/1.1 ")) {
        this.received = "";
        this.waiting = false;
      }
    });
    // Not events.once(): it rejects on the ECONNRESET of a process closing its port.
    this.closed = new Promise((resolve) => socket.once("close", resolve));
  }

  static async open(port: number): Promise<ReadyzProbe> {
    const socket = net.connect({ host: "127.0.0.1", port });
    await once(socket, "connect");
    return new ReadyzProbe(socket);
  }

  /** Asks unless a question is still open; false when it could not. */
  ask(): boolean {
    if (this.waiting || !this.socket.writable) return false;
    this.waiting = true;
    this.socket.write("GET /readyz HTTP/1.1\r\nHost: probe\r\n\r\n");
    return true;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/**
 * Sends SIGTERM and watches /readyz on `healthPort` until the process exits, so the test sees
 * whether readiness dropped before the port closed. A fast stop lasts tens of ms, less than a
 * starved test process needs to connect and wait for an answer, so the connections are open
 * before the signal and, from the signal on, every connection with no question open asks
 * again each millisecond: the process answers whenever its stop awaits something, until it
 * closes its port.
 */
export async function terminate(
  service: ServiceProcess,
  healthPort: number,
  /** Called as the signal is sent (after the probe connections are open). */
  onSignal: () => void = () => undefined,
): Promise<Termination> {
  const probes = await Promise.all(
    Array.from({ length: PROBE_CONNECTIONS }, () => ReadyzProbe.open(healthPort)),
  );
  const askAll = () => probes.forEach((probe) => probe.ask());
  const started = Date.now();
  service.child.kill("SIGTERM");
  onSignal();
  askAll();
  const asking = setInterval(askAll, 1);
  const { code, signal } = await service.exited;
  const elapsedMs = Date.now() - started;
  clearInterval(asking);
  for (const probe of probes) probe.destroy();
  await Promise.all(probes.map((probe) => probe.closed));
  // Each connection has its answers in the order the process gave them (not so across connections).
  const readyAfterUnready = (answers: number[]) =>
    answers.includes(503) && answers.slice(answers.indexOf(503)).includes(200);
  const readiness = probes.flatMap((probe) => probe.answers);
  return {
    code,
    signal,
    elapsedMs,
    readiness,
    readyAgain: probes.some((probe) => readyAfterUnready(probe.answers)),
    wentUnready: readiness.includes(503) && !probes.some((probe) => readyAfterUnready(probe.answers)),
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

/**
 * Starts a service's bundle on a free loopback port (PORT, HOST) and waits for its /readyz
 * (on `healthPort`: PORT itself, or HEALTH_PORT for the gateway and the dashboard); the process
 * joins `processes` at once, so a test's clean-up kills it even if it never gets ready.
 */
export async function launchService(
  name: string,
  env: Record<string, string>,
  processes: ServiceProcess[],
): Promise<{ service: ServiceProcess; port: number; healthPort: number }> {
  const port = await freePort();
  const healthPort = WITH_HEALTH_PORT.has(name) ? await freePort() : port;
  const service = startServiceProcess(name, {
    HOST: "127.0.0.1",
    ...env,
    PORT: String(port),
    HEALTH_PORT: String(healthPort),
  });
  processes.push(service);
  await service.waitReady(healthPort);
  return { service, port, healthPort };
}

/**
 * The stop every service owes its orchestrator: exit 0 with nothing on stderr, within 10 s,
 * and /readyz answering 503 (never 200 again) once SIGTERM arrived.
 */
export function expectCleanStop(stopped: Termination, service: ServiceProcess): void {
  expect({ code: stopped.code, signal: stopped.signal, stderr: service.stderr() }).toEqual({
    code: 0,
    signal: null,
    stderr: "",
  });
  expect(stopped.elapsedMs).toBeLessThan(10_000);
  // The answers in the message: a failure says whether no probe was answered after the signal
  // (an empty list), or it stayed ready, or became ready again.
  if (!stopped.wentUnready)
    throw new Error(
      `/readyz did not answer 503 for good after SIGTERM; the probes' answers: ${JSON.stringify(stopped.readiness)}; stopped in ${stopped.elapsedMs} ms`,
    );
}
