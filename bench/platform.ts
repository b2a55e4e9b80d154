// The platform as `npm start` runs it (scripts/run-all.mjs: every service, the background
// workers at nice 10), started for one bench run on ports BASE+n with its own database and
// Redis prefix; the carrier simulator apart, so one SMSC can serve several runs (bench:e2e
// points Kannel at it after the platform has stopped).
import crypto from "node:crypto";
import type { ChildProcess } from "node:child_process";
import pg from "pg";
import { hashPassword } from "@sms/auth";
import { isRunnable, laneSettings, listenOn, startService, stopService } from "./support";

/** What scripts/run-all.mjs starts, the carrier simulator aside (the high lanes last, to keep the others' ports). */
const SERVICES = [
  "api-gateway",
  "dispatcher",
  "dlr-ingest",
  "scheduler",
  "webhook-delivery",
  "otp-sweeper",
  "smpp-server",
  "dashboard",
  "ops-console",
  "dispatcher-high",
  "webhook-delivery-high",
] as const;

/** The lanes' ports after base (base+13… are Kannel's in bench:e2e). */
const LANE_PORTS: Partial<Record<(typeof SERVICES)[number], number>> = {
  "dispatcher-high": 16,
  "webhook-delivery-high": 17,
};

export interface Simulator {
  child: ChildProcess;
  smppPort: number;
  httpPort: number;
}

/**
 * The default upstream SMSC: every message accepted and answered with a DELIVRD receipt after
 * `receiptDelayMs`, no throttling, no magic numbers; ports base+1 (SMPP) and base+2 (HTTP).
 */
export async function startSimulator(base: number, receiptDelayMs = 50): Promise<Simulator> {
  const smppPort = base + 1;
  const httpPort = base + 2;
  const child = await startService(
    "carrier-simulator",
    {
      CARRIER_SIM_HOST: "127.0.0.1",
      CARRIER_SIM_SMPP_PORT: String(smppPort),
      CARRIER_SIM_HTTP_PORT: String(httpPort),
      CARRIER_SIM_RECEIPT_DELAY_MS: String(receiptDelayMs),
      CARRIER_SIM_WINDOW_SIZE: "200",
      CARRIER_SIM_THROTTLE_PER_SECOND: "0",
      CARRIER_SIM_MAGIC_NUMBERS: "false",
    },
    `http://127.0.0.1:${httpPort}/readyz`,
  );
  return { child, smppPort, httpPort };
}

/** One carrier (the simulator, as `platform`) and a route of every number to it. */
export async function routeEverythingTo(db: pg.Client, simulator: Simulator): Promise<void> {
  await db.query(
    `INSERT INTO carriers (id, name, host, port, system_id, password, transmitter_binds, receiver_binds, window_size, submits_per_second, updated_at)
     VALUES ('sim', 'simulator', '127.0.0.1', $1, 'platform', 'platform', 2, 1, 100, 100000, now())`,
    [simulator.smppPort],
  );
  await db.query("INSERT INTO routes (id, prefix, carrier_id, priority) VALUES ('rte_all', '+', 'sim', 0)");
}

export interface Platform {
  gatewayUrl: string;
  /** Service name → its process. */
  processes: Map<string, ChildProcess>;
  stop(): Promise<void>;
}

/** Every service but the simulator, on ports base+3 … base+11 and the high lanes on base+16 and base+17 (the gateway on base+3; the gateway's and the dashboard's internal health ports are base+30+n). */
export async function startPlatform(options: {
  base: number;
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
}): Promise<Platform> {
  const common = {
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    REDIS_PREFIX: options.redisPrefix,
  };
  const web = { HOST: "127.0.0.1", WEBHOOK_ALLOW_LOOPBACK: "true", WEBHOOK_ALLOW_HTTP: "true" };
  const settings: Record<(typeof SERVICES)[number], Record<string, string>> = {
    "api-gateway": { HOST: "127.0.0.1" },
    dispatcher: {},
    "dispatcher-high": {},
    "dlr-ingest": {},
    scheduler: {},
    "webhook-delivery": web,
    "webhook-delivery-high": web,
    "otp-sweeper": {},
    "smpp-server": { HOST: "127.0.0.1", SMPP_PORT: String(options.base + 12) },
    dashboard: { ...web, DASHBOARD_SECURE_COOKIES: "false" },
    "ops-console": {
      HOST: "127.0.0.1",
      OPS_CONSOLE_PASSWORD_HASH: await hashPassword(crypto.randomBytes(16).toString("hex")),
    },
  };
  const processes = new Map<string, ChildProcess>();
  const stop = async () => {
    for (const child of [...processes.values()].reverse()) await stopService(child);
  };
  try {
    const lanes = laneSettings(SERVICES.filter(isRunnable));
    for (const [i, name] of SERVICES.entries()) {
      if (!isRunnable(name)) continue;
      // base+12 is the smpp-server's SMPP port, base+13… Kannel's in bench:e2e.
      const port = String(options.base + (LANE_PORTS[name] ?? 3 + i));
      const { env, readyUrl } = listenOn(name, port, options.base + 30 + i);
      processes.set(
        name,
        await startService(name, { ...common, ...lanes[name], ...settings[name], ...env }, readyUrl),
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { gatewayUrl: `http://127.0.0.1:${options.base + 3}`, processes, stop };
}
