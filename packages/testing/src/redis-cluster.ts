import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./servers";
import { waitFor } from "./wait";

const run = promisify(execFile);

/** A Redis Cluster of this test's own: redis-server processes on loopback ports, in a temp dir. */
export interface TestRedisCluster {
  /** `redis-cluster://127.0.0.1:<port>,…`: REDIS_URL for the services under test. */
  url: string;
  /** Client ports of the masters. */
  ports: number[];
  /** Stops this cluster's redis-servers (and only those) and removes their directory. */
  stop(): Promise<void>;
}

/** The shared Redis of every other test and engineer: never started, stopped or reconfigured here. */
const SHARED_REDIS_PORT = 6379;

/**
 * Starts `masters` redis-server processes with cluster-enabled (no replicas, no persistence),
 * joins them with `redis-cli --cluster create`, and waits until every node reports
 * cluster_state:ok. Needs the local redis-server and redis-cli binaries.
 */
export async function startRedisCluster(masters = 3): Promise<TestRedisCluster> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "sms-redis-cluster-"));
  const ports = await distinctFreePorts(masters * 2);
  const clientPorts = ports.slice(0, masters);
  const busPorts = ports.slice(masters);
  const servers: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      servers.map(async (server) => {
        if (server.exitCode !== null || server.signalCode !== null) return;
        const exited = once(server, "exit");
        server.kill("SIGTERM");
        await exited;
      }),
    );
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const [i, port] of clientPorts.entries()) {
      const settings: Record<string, string> = {
        port: String(port),
        "cluster-port": String(busPorts[i]),
        bind: "127.0.0.1",
        "cluster-enabled": "yes",
        "cluster-config-file": `nodes-${port}.conf`,
        "cluster-node-timeout": "5000",
        dir,
        save: "",
        appendonly: "no",
        daemonize: "no",
        logfile: `redis-${port}.log`,
      };
      const args = Object.entries(settings).flatMap(([name, value]) => [`--${name}`, value]);
      const server = spawn("redis-server", args, { stdio: "ignore" });
      servers.push(server);
      // A test that dies before stop() must not leave its servers running.
      const killOnExit = () => server.kill("SIGKILL");
      process.once("exit", killOnExit);
      server.once("exit", () => process.off("exit", killOnExit));
    }
    for (const port of clientPorts)
      await waitFor(() => cli(port, "PING").then((reply) => reply === "PONG"), {
        what: `redis-server on ${port}`,
      });
    await run("redis-cli", [
      "--cluster",
      "create",
      ...clientPorts.map((port) => `127.0.0.1:${port}`),
      "--cluster-replicas",
      "0",
      "--cluster-yes",
    ]);
    for (const port of clientPorts)
      await waitFor(async () => /cluster_state:ok/.test(await cli(port, "CLUSTER", "INFO")), {
        timeoutMs: 20_000,
        what: `cluster_state:ok on ${port}`,
      });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: `redis-cluster://${clientPorts.map((port) => `127.0.0.1:${port}`).join(",")}`,
    ports: clientPorts,
    stop,
  };
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...args]);
  return stdout.trim();
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) {
    const port = await freePort();
    if (port !== SHARED_REDIS_PORT) ports.add(port);
  }
  return [...ports];
}
