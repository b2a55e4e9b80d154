// Runs every service of the platform as child processes of this one, for local
// use: prefixed logs, SIGINT/SIGTERM forwarded, and if one service dies the rest
// are stopped (a half-running platform is worse than a clear failure).
// SERVICES=api-gateway,dispatcher limits the set. Production runs each service on its own.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { laneSettings, serviceOf } from "./lanes.mjs";

const root = path.resolve(import.meta.dirname, "..");
// Order matters for start-up only in that upstreams come first.
const ALL = [
  "carrier-simulator",
  "api-gateway",
  "dispatcher",
  "dispatcher-high",
  "dlr-ingest",
  "scheduler",
  "webhook-delivery",
  "webhook-delivery-high",
  "otp-sweeper",
  "smpp-server",
  "dashboard",
  "ops-console",
];
const wanted = process.env.SERVICES ? process.env.SERVICES.split(",") : ALL;
// Every service reads PORT (one per container in production); here each gets its own.
// The gateway keeps the PORT this script was given; the others serve /healthz, /readyz and /metrics.
// The gateway's and the dashboard's public ports answer /healthz only: their /readyz and
// /metrics are on HEALTH_PORTS.
const HEALTH_PORTS = { "api-gateway": "3001", dashboard: "3101" };
const PORTS = {
  "api-gateway": process.env.PORT ?? "3000",
  scheduler: "3010",
  dispatcher: "3020",
  "dispatcher-high": "3021",
  "dlr-ingest": "3030",
  "webhook-delivery": "3040",
  "webhook-delivery-high": "3041",
  "otp-sweeper": "3050",
  "smpp-server": "3060",
  "carrier-simulator": "3070",
  dashboard: "3100",
  "ops-console": "3090",
};
// The background workers (scripts/background-services.json, which the benches read too)
// step back when the CPU is contended (PROCESS_NICE, see
// @sms/service-runtime): on one host, a customer's request is answered first and the
// backlog drains with what is left. BACKGROUND_NICE=0 runs everything alike.
const BACKGROUND = new Set(
  JSON.parse(readFileSync(path.join(root, "scripts", "background-services.json"), "utf8")),
);
const BACKGROUND_NICE = process.env.BACKGROUND_NICE ?? "10";
// V8 flags of the services that need them, as the container image starts them (scripts/node-flags.json).
const NODE_FLAGS = JSON.parse(readFileSync(path.join(root, "scripts", "node-flags.json"), "utf8"));
// A lane (scripts/lanes.mjs) runs another service's bundle: the high lanes work OTPs and their
// webhooks at nice 0 while the dispatcher and webhook-delivery of everything else step back with
// the other background workers.
const services = wanted.filter((name) =>
  existsSync(path.join(root, "services", serviceOf(name), "dist", "main.js")),
);
const laneEnv = laneSettings(services);

const children = new Map();
let stopping = false;

function stopAll(signal) {
  if (stopping) return;
  stopping = true;
  for (const child of children.values()) child.kill(signal);
  setTimeout(() => process.exit(1), 15_000).unref();
}

for (const name of services) {
  const child = spawn(
    process.execPath,
    [
      "--enable-source-maps",
      ...(NODE_FLAGS[serviceOf(name)] ?? []),
      path.join(root, "services", serviceOf(name), "dist", "main.js"),
    ],
    {
      env: {
        ...process.env,
        ...laneEnv[name],
        PORT: PORTS[name] ?? "0",
        ...(HEALTH_PORTS[name] && { HEALTH_PORT: HEALTH_PORTS[name] }),
        ...(BACKGROUND.has(name) ? { PROCESS_NICE: BACKGROUND_NICE } : {}),
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.set(name, child);
  const prefix = `${name.padEnd(18)}| `;
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = "";
    stream.on("data", (chunk) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop();
      for (const line of lines) process.stdout.write(prefix + line + "\n");
    });
  }
  child.on("exit", (code, signal) => {
    children.delete(name);
    if (!stopping) {
      console.error(`${prefix}exited (${signal ?? code}); stopping the others`);
      stopAll("SIGTERM");
    }
    if (children.size === 0) process.exit(stopping && code === 0 ? 0 : 1);
  });
}
console.log(`started: ${services.join(", ")}`);
process.on("SIGINT", () => stopAll("SIGTERM"));
process.on("SIGTERM", () => stopAll("SIGTERM"));
void announceWhenListening();

// The lines start.sh printed (the curl line, the SMPP credentials) work once every service
// listens, a few seconds after "started": say when.
async function announceWhenListening() {
  const healthPort = (name) =>
    name === "carrier-simulator" ? (process.env.CARRIER_SIM_HTTP_PORT ?? "8776") : PORTS[name];
  const answers = (name) =>
    fetch(`http://127.0.0.1:${healthPort(name)}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
  const deadline = Date.now() + 60_000;
  let waiting = services;
  while (waiting.length > 0 && !stopping) {
    const answered = await Promise.all(waiting.map(answers));
    waiting = waiting.filter((_, i) => !answered[i]);
    if (waiting.length > 0 && Date.now() > deadline) {
      console.log(`not answering /healthz after 60 s: ${waiting.join(", ")}`);
      return;
    }
    if (waiting.length > 0) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  if (!stopping)
    console.log("ready: every service answers; the lines above work now (Ctrl-C stops them all)");
}
