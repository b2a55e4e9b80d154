import { ConfigError } from "@sms/config";
import { readCarrierHealth } from "@sms/carrier-health";
import { createDatabase } from "@sms/db";
import { createRedis, type Redis } from "@sms/redis";
import { runCli } from "./cli";
import { loadAdminConfig } from "./config";
import { createWebhookIo, type WebhookIo } from "./webhook-io";

async function main(): Promise<number> {
  let config;
  try {
    config = loadAdminConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  const db = createDatabase(config.DATABASE_URL, { poolSize: 4, applicationName: "admin-cli" });
  let webhooks: WebhookIo | undefined;
  let redis: Redis | undefined;
  try {
    return await runCli(process.argv.slice(2), {
      db,
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
      gatewayUrl: config.GATEWAY_URL,
      dashboardUrl: config.DASHBOARD_URL,
      smppServerAddress: config.SMPP_SERVER_ADDRESS,
      simulatorSmpp: { host: config.SIMULATOR_SMPP_HOST, port: config.SIMULATOR_SMPP_PORT },
      carrierHealth: (ids) =>
        readCarrierHealth((redis ??= createRedis(config.REDIS_URL, "command")), config.REDIS_PREFIX, ids),
      webhooks: () =>
        (webhooks ??= createWebhookIo(db, {
          secretKey: config.SECRET_ENCRYPTION_KEY,
          policy: { allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK, allowHttp: config.WEBHOOK_ALLOW_HTTP },
          redisUrl: config.REDIS_URL,
          redisPrefix: config.REDIS_PREFIX,
          replayMaxPerRequest: config.WEBHOOK_REPLAY_MAX_PER_REQUEST,
        })),
    });
  } finally {
    redis?.disconnect();
    await db.close();
  }
}

// exitCode, not exit(): let stdout drain when piped.
void main().then((code) => {
  process.exitCode = code;
});
