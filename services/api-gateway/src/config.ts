import { commonSettings, envBoolean, envInt, loadConfig, segmentSettings, z } from "@sms/config";
import { exportsPerAccountSetting } from "@sms/message-state";
import { encryptionKeySetting } from "@sms/secret-box";

const GatewaySettings = z.object({
  ...commonSettings,
  /** HTTP port of the API. */
  PORT: envInt(3000, 0, 65535),
  /** Internal port for /readyz (with each dependency's state) and /metrics; PORT answers /healthz only. */
  HEALTH_PORT: envInt(3001, 0, 65535),
  /** Worker processes sharing the port (node:cluster); 1 runs in this process. Each has its own pools. */
  GATEWAY_WORKERS: envInt(1, 1, 64),
  /** Address to listen on. */
  HOST: z.string().default("0.0.0.0"),
  /** Message exports (GET /v1/sms/export) one account may run at a time in each gateway process (docs/api.md#export-messages). */
  EXPORTS_PER_ACCOUNT: exportsPerAccountSetting(),
  /** Largest request body in bytes (docs/api.md#conventions: 1 MiB). */
  BODY_LIMIT_BYTES: envInt(1024 * 1024, 1024, 64 * 1024 * 1024),
  ...segmentSettings,
  /** Validity of a message that names none, in seconds (48 h: docs/messages.md#validity); from when it is due. */
  MESSAGE_VALIDITY_DEFAULT_SECONDS: envInt(172_800, 60, 259_200),
  /** Seconds an authenticated key (and its account's senders/limits) is cached; revocation takes effect within it. */
  AUTH_CACHE_SECONDS: envInt(5, 0, 300),
  /** Hours an Idempotency-Key is remembered (docs/api.md#idempotency: 24 h). */
  IDEMPOTENCY_TTL_HOURS: envInt(24, 1, 24 * 30),
  /** Milliseconds between runs of the dispatch outbox relay. */
  OUTBOX_RELAY_INTERVAL_MS: envInt(5000, 100, 600000),
  /** Age in ms after which an outbox row is re-enqueued by the relay. */
  OUTBOX_STALE_AFTER_MS: envInt(10000, 100, 3600000),
  /** On SIGTERM, ms the requests in flight get before their connections are cut. */
  SHUTDOWN_TIMEOUT_MS: envInt(8000, 100, 120_000),
  /** Serve /docs (the rendered OpenAPI document). */
  DOCS_ENABLED: envBoolean(true),
  /** Trust X-Forwarded-* from this many proxies (for client IPs in logs). */
  TRUST_PROXY_HOPS: envInt(0, 0, 10),
  /** Secret of the OTP code HMACs (at least 32 characters; openssl rand -base64 32). Changing it voids pending OTPs. */
  OTP_HMAC_SECRET: z.string().min(32),
  /** 32 bytes in base64: seals the text of OTP messages for the dispatcher (docs/otp.md#the-sms). */
  SECRET_ENCRYPTION_KEY: encryptionKeySetting(),
  /** Wrong codes an OTP takes before it fails (docs/otp.md#limits: 5). */
  OTP_MAX_ATTEMPTS: envInt(5, 1, 100),
  /** OTPs sent to one phone by one account per window (docs/otp.md#limits: 5 per 10 minutes). */
  OTP_SENDS_PER_WINDOW: envInt(5, 1, 1_000_000),
  /** The window of OTP_SENDS_PER_WINDOW in seconds. */
  OTP_SEND_WINDOW_SECONDS: envInt(600, 1, 86400),
  /** OTPs one account sent to one destination range in the last hour before the pumping guard judges it; 0: off. */
  OTP_PUMPING_MIN_SENDS: envInt(50, 0, 1_000_000),
  /** Least share (percent) of those OTPs that must have been verified, else the range is paused. */
  OTP_PUMPING_MIN_VERIFIED_PERCENT: envInt(20, 0, 100),
  /** Leading digits of the E.164 number, country code included, that make one destination range. */
  OTP_PUMPING_PREFIX_DIGITS: envInt(6, 1, 15),
  /** Sender id of OTP messages: the platform's own, not one of the account's. */
  OTP_SENDER_ID: z.string().min(1).max(16).default("Verify"),
});

export type GatewayConfig = z.infer<typeof GatewaySettings>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(GatewaySettings, env);
}
