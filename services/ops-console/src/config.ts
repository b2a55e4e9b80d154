import { commonSettings, envBoolean, envInt, loadConfig, z } from "@sms/config";
import { isPasswordHash } from "@sms/auth";

const OpsConsoleSettings = z.object({
  REDIS_URL: commonSettings.REDIS_URL,
  REDIS_PREFIX: commonSettings.REDIS_PREFIX,
  LOG_LEVEL: commonSettings.LOG_LEVEL,
  /** The admin port: Bull Board (behind the credential), /healthz, /readyz and /metrics (open, for probes and Prometheus). */
  PORT: envInt(3090, 0, 65535),
  /** Address the admin port listens on; keep it off the public network. */
  HOST: z.string().default("0.0.0.0"),
  /** User name of the operator credential (HTTP Basic). */
  OPS_CONSOLE_USER: z.string().min(1).default("ops"),
  /** scrypt hash of the operator's password: `printf '%s' "$PASSWORD" | node services/ops-console/dist/main.js hash-password`. */
  OPS_CONSOLE_PASSWORD_HASH: z
    .string()
    .refine(isPasswordHash, "expected scrypt$N$r$p$<salt>$<hash>, as `main.js hash-password` prints it"),
  /** Failed sign-ins a client address may make before it has to wait (1 s, doubling with each further failure). */
  OPS_CONSOLE_AUTH_FREE_FAILURES: envInt(5, 1, 1000),
  /** The longest wait a failing address gets, in ms. */
  OPS_CONSOLE_AUTH_MAX_DELAY_MS: envInt(300_000, 1000, 86_400_000),
  /** Hide Bull Board's retry, promote, clean and remove actions; set false to let operators act on jobs. */
  OPS_CONSOLE_READ_ONLY: envBoolean(true),
  /** Folder of @bull-board/ui; found in the workspace's node_modules when unset. */
  OPS_CONSOLE_UI_PATH: z.string().optional(),
});

export type OpsConsoleConfig = z.infer<typeof OpsConsoleSettings>;

export function loadOpsConsoleConfig(env: NodeJS.ProcessEnv = process.env): OpsConsoleConfig {
  return loadConfig(OpsConsoleSettings, env);
}
