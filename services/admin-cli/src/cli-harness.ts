// Test support (imported only by *.test.ts): a migrated database of its own and an in-process CLI.
import { readCarrierHealth } from "@sms/carrier-health";
import { createDatabase, type Database } from "@sms/db";
import { createRedis } from "@sms/redis";
import { createTestWorld, type TestWorld } from "@sms/testing";
import crypto from "node:crypto";
import { runCli, type CliIo } from "./cli";
import { createWebhookIo } from "./webhook-io";

export interface CliRun {
  code: number;
  out: string[];
  err: string[];
  /** stdout joined, for --json output and single-line results. */
  stdout: string;
  stderr: string;
}

export interface CliHarness {
  world: TestWorld;
  db: Database;
  gatewayUrl: string;
  simulatorSmpp: CliIo["simulatorSmpp"];
  run(...argv: string[]): Promise<CliRun>;
  /** Runs with some of the CLI's settings changed (as if the environment differed). */
  runWith(
    settings: Partial<Pick<CliIo, "gatewayUrl" | "simulatorSmpp" | "dashboardUrl">>,
    ...argv: string[]
  ): Promise<CliRun>;
  /** Runs with --json, expects exit code 0 and returns the parsed document. */
  json<T = Record<string, unknown>>(...argv: string[]): Promise<T>;
  /** Creates an account and returns its id. */
  createAccount(name?: string, credits?: number): Promise<string>;
  close(): Promise<void>;
}

export async function startCliHarness(
  options: { webhookReplayMaxPerRequest?: number } = {},
): Promise<CliHarness> {
  const world = await createTestWorld();
  const db = createDatabase(world.databaseUrl, { poolSize: 10 });
  const gatewayUrl = "http://127.0.0.1:3999";
  const healthRedis = createRedis(world.redisUrl, "command");
  const simulatorSmpp = { host: "127.0.0.1", port: 2776 };
  const webhookIo = createWebhookIo(db, {
    secretKey: crypto.randomBytes(32).toString("base64"),
    policy: { allowLoopback: true, allowHttp: true },
    redisUrl: world.redisUrl,
    redisPrefix: world.redisPrefix,
    replayMaxPerRequest: options.webhookReplayMaxPerRequest ?? 1000,
  });
  const runWith = async (
    settings: Partial<Pick<CliIo, "gatewayUrl" | "simulatorSmpp" | "dashboardUrl">>,
    ...argv: string[]
  ): Promise<CliRun> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, {
      db,
      gatewayUrl,
      dashboardUrl: "http://127.0.0.1:3100",
      smppServerAddress: "127.0.0.1:2775",
      simulatorSmpp,
      carrierHealth: (ids) => readCarrierHealth(healthRedis, world.redisPrefix, ids),
      webhooks: () => webhookIo,
      ...settings,
      out: (line) => out.push(line),
      err: (line) => err.push(line),
    });
    return { code, out, err, stdout: out.join("\n"), stderr: err.join("\n") };
  };
  const run = (...argv: string[]) => runWith({}, ...argv);
  const json = async <T>(...argv: string[]): Promise<T> => {
    const result = await run(...argv, "--json");
    if (result.code !== 0) throw new Error(`${argv.join(" ")} exited ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  };
  return {
    world,
    db,
    gatewayUrl,
    simulatorSmpp,
    run,
    runWith,
    json,
    async createAccount(name = "Acme", credits = 0) {
      const { id } = await json<{ id: string }>(
        "account",
        "create",
        "--name",
        name,
        "--credits",
        String(credits),
      );
      return id;
    },
    async close() {
      healthRedis.disconnect();
      await db.close();
      await world.destroy();
    },
  };
}
