import { commonSettings, envBoolean, envInt, loadConfig, z } from "@sms/config";
import { encryptionKeySetting } from "@sms/secret-box";

const AdminConfig = z.object({
  /** PostgreSQL connection URL (the database every service shares). */
  DATABASE_URL: commonSettings.DATABASE_URL,
  /** Base URL of the REST gateway, used only to print working curl lines (`demo`). */
  GATEWAY_URL: z.string().url().default("http://127.0.0.1:3000"),
  /** Public base URL of the customer dashboard, for the links `dashboard invite` prints. */
  DASHBOARD_URL: z.string().url().default("http://127.0.0.1:3100"),
  /** Host of the local carrier simulator's SMPP listener, for the demo's "simulator" carrier. */
  SIMULATOR_SMPP_HOST: z.string().min(1).default("127.0.0.1"),
  /** Port of that listener (the simulator's CARRIER_SIM_SMPP_PORT, 2776 unless changed). */
  SIMULATOR_SMPP_PORT: envInt(2776, 1, 65_535),
  /** Where customers bind to our smpp-server, for the SMPP line `demo` prints. */
  SMPP_SERVER_ADDRESS: z.string().min(1).default("127.0.0.1:2775"),
  /** Redis, for `webhook replay` (it queues deliveries again). */
  REDIS_URL: commonSettings.REDIS_URL,
  REDIS_PREFIX: commonSettings.REDIS_PREFIX,
  /**
   * Failed webhook deliveries one replay (a click, a command) queues again, oldest first;
   * the rest stay failed for the next replay, so one request cannot flood the queue.
   */
  WEBHOOK_REPLAY_MAX_PER_REQUEST: envInt(1000, 1, 100_000),
  /** The services' key sealing webhook secrets; needed by the webhook commands only. */
  SECRET_ENCRYPTION_KEY: encryptionKeySetting().optional(),
  /** As the webhook-delivery service: loopback and http:// URLs only for local use. */
  WEBHOOK_ALLOW_LOOPBACK: envBoolean(false),
  WEBHOOK_ALLOW_HTTP: envBoolean(false),
});
export type AdminConfig = z.infer<typeof AdminConfig>;

/** Reads the CLI's settings from the environment; throws a ConfigError naming a bad one. */
export function loadAdminConfig(env: NodeJS.ProcessEnv = process.env): AdminConfig {
  return loadConfig(AdminConfig, env);
}
