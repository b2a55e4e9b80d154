import { commonSettings, envBoolean, envInt, loadConfig, z } from "@sms/config";
import { exportsPerAccountSetting } from "@sms/message-state";
import { encryptionKeySetting } from "@sms/secret-box";

const DashboardSettings = z.object({
  ...commonSettings,
  /** Port of the dashboard (pages and /healthz). */
  PORT: envInt(3100, 0, 65535),
  /** Internal port for /readyz (with each dependency's state) and /metrics. */
  HEALTH_PORT: envInt(3101, 0, 65535),
  /** Address it listens on. */
  HOST: z.string().default("0.0.0.0"),
  /** The services' key sealing webhook secrets (reveal, rotate, test events). */
  SECRET_ENCRYPTION_KEY: encryptionKeySetting(),
  /** Cookies get Secure (and the __Host- name) unless this is false; only plain-http local use turns it off. */
  DASHBOARD_SECURE_COOKIES: envBoolean(true),
  /** A session ends this long after sign-in, whatever happens. */
  DASHBOARD_SESSION_HOURS: envInt(12, 1, 24 * 30),
  /** … and after this long without a request. */
  DASHBOARD_SESSION_IDLE_MINUTES: envInt(60, 1, 24 * 60),
  /** Wrong passwords per e-mail address within the window before sign-in is refused. */
  DASHBOARD_LOCKOUT_ATTEMPTS: envInt(5, 1, 100),
  /** The lockout window: failures older than this no longer count. */
  DASHBOARD_LOCKOUT_WINDOW_MINUTES: envInt(15, 1, 24 * 60),
  /**
   * Failed sign-ins from one client address (any e-mail) within the lockout window before
   * that address is refused too: a guesser spraying many e-mail addresses is slowed, and
   * every try costs us a password hash. Behind a proxy set TRUST_PROXY_HOPS, or every
   * client shares the proxy's address.
   */
  DASHBOARD_IP_SIGN_IN_FAILURES: envInt(30, 1, 10_000),
  /** CSV downloads (/messages/export) one account may run at a time in this process, as the gateway's (docs/api.md#export-messages). */
  EXPORTS_PER_ACCOUNT: exportsPerAccountSetting(),
  /** Largest form body, in bytes. */
  DASHBOARD_BODY_LIMIT_BYTES: envInt(16_384, 1024, 1_048_576),
  /** Proxies whose X-Forwarded-For is trusted (for the address recorded with sign-in attempts). */
  TRUST_PROXY_HOPS: envInt(0, 0, 10),
  /** As webhook-delivery: loopback and http:// webhook URLs only for local use and tests. */
  WEBHOOK_ALLOW_LOOPBACK: envBoolean(false),
  WEBHOOK_ALLOW_HTTP: envBoolean(false),
  /**
   * Failed webhook deliveries one replay (a click, a command) queues again, oldest first;
   * the rest stay failed for the next replay, so one request cannot flood the queue.
   */
  WEBHOOK_REPLAY_MAX_PER_REQUEST: envInt(1000, 1, 100_000),
  /** Bound on a graceful stop: in-flight requests get this long. */
  SHUTDOWN_TIMEOUT_MS: envInt(8_000, 100, 120_000),
});

export type DashboardConfig = z.infer<typeof DashboardSettings>;

/** Reads the dashboard's settings; throws a ConfigError naming a bad one. */
export function loadDashboardConfig(env: NodeJS.ProcessEnv = process.env): DashboardConfig {
  return loadConfig(DashboardSettings, env);
}
