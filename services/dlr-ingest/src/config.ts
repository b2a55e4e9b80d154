import { commonSettings, envInt, loadConfig, segmentSettings, z } from "@sms/config";
import { encryptionKeySetting } from "@sms/secret-box";

const MINUTE = 60_000;

const DlrIngestSettings = z.object({
  ...commonSettings,
  /** HTTP port: /healthz, /readyz, /metrics and the carriers' receipt endpoint. */
  PORT: envInt(3030, 0, 65535),
  /** Address to listen on. */
  HOST: z.string().default("0.0.0.0"),
  /** How often the carriers table is read again (new carrier → bind; disabled, removed or changed → unbind), ms. */
  CARRIER_REFRESH_MS: envInt(10_000, 100, 60 * MINUTE),
  /** How often unmatched receipts are retried against the segments (the safety net), ms. */
  SWEEP_INTERVAL_MS: envInt(MINUTE, 100, 60 * MINUTE),
  /** Unmatched receipts younger than this are left to the dispatcher's matchPendingReceipts, ms. */
  SWEEP_MIN_AGE_MS: envInt(30_000, 0, 24 * 60 * MINUTE),
  /** Unmatched receipts older than this are given up on (their segment never got that id), ms: 3 days. */
  SWEEP_MAX_AGE_MS: envInt(3 * 24 * 60 * MINUTE, MINUTE),
  /** A concatenated inbound message still missing parts this long after its first is stored as what arrived (flagged incomplete), ms. */
  INBOUND_PART_TIMEOUT_MS: envInt(10 * MINUTE, 1_000, 24 * 60 * MINUTE),
  /** How long the parts of a stored inbound message are kept to recognise a carrier's redelivery of one, ms: 1 day. */
  INBOUND_PART_KEEP_MS: envInt(24 * 60 * MINUTE, MINUTE, 7 * 24 * 60 * MINUTE),
  /** How often timed-out inbound groups are stored and old parts deleted, ms. */
  INBOUND_SWEEP_INTERVAL_MS: envInt(10_000, 100, 60 * MINUTE),
  /** Bearer token of POST /v1/carriers/{id}/receipts (at least 16 characters); unset turns the endpoint off. */
  HTTP_RECEIPT_TOKEN: z.preprocess(
    (value) => (value === "" ? undefined : value),
    z.string().min(16).optional(),
  ),
  // MAX_SEGMENTS and CREDITS_PER_SEGMENT of keyword auto-replies (an account's longer text is refused).
  ...segmentSettings,
  /** Opens the carriers' SMPP passwords, sealed at rest (the services' one key). */
  SECRET_ENCRYPTION_KEY: encryptionKeySetting(),
  /** enquire_link period on receiver binds, ms; 0 turns it off. */
  SMPP_ENQUIRE_LINK_MS: envInt(30_000, 0, 10 * MINUTE),
  /** How long our SMPP requests (bind, enquire_link, unbind) wait for their response, ms. */
  SMPP_RESPONSE_TIMEOUT_MS: envInt(10_000, 100, MINUTE),
  /** On SIGTERM, how long receipts being applied get to commit and be acknowledged, ms. */
  SHUTDOWN_TIMEOUT_MS: envInt(5_000, 0, MINUTE),
});

export type DlrIngestConfig = z.infer<typeof DlrIngestSettings>;

/** Reads and validates the environment; throws a ConfigError naming every bad setting. */
export function loadDlrIngestConfig(env: NodeJS.ProcessEnv = process.env): DlrIngestConfig {
  // SHUTDOWN_GRACE_MS is this setting's former name: a manifest that still sets it keeps its bound.
  const { SHUTDOWN_GRACE_MS, SHUTDOWN_TIMEOUT_MS = SHUTDOWN_GRACE_MS, ...rest } = env;
  return loadConfig(DlrIngestSettings, { ...rest, SHUTDOWN_TIMEOUT_MS });
}
