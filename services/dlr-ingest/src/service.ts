import type { Server } from "node:http";
import { createDatabase } from "@sms/db";
import type { Logger } from "@sms/logger";
import {
  completeTimedOutGroups,
  createDeliverSmHandler,
  purgeStoredParts,
  sweepUnmatched,
  type InboundHook,
} from "@sms/receipts";
import { InFlight } from "@sms/service-runtime";
import { optOutOnInbound } from "@sms/suppressions";
import { CarrierBinds } from "./carrier-binds";
import { createSecretBox } from "@sms/secret-box";
import { loadEnabledCarriers } from "./carriers";
import type { DlrIngestConfig } from "./config";
import { buildApp } from "./http/app";
import { INSTANCE_NAME } from "./instance";
import { Metrics } from "./metrics";
import { runPeriodically } from "./periodic";

/** A running dlr-ingest. */
export interface RunningDlrIngest {
  server: Server;
  port: number;
  binds: CarrierBinds;
  /** Reads the carriers table now and reconciles the binds (the refresh loop does it every CARRIER_REFRESH_MS). */
  refreshCarriers(): Promise<void>;
  /** SIGTERM: refuse new receipts, stop the loops and the HTTP server, let receipts in flight commit, unbind, close the database. */
  stop(): Promise<void>;
}

/** Connects to PostgreSQL, binds to every enabled carrier and serves HTTP. */
/**
 * @param onInbound runs in the transaction storing each inbound message, on binds and in the
 *   timeout sweep alike: by default the opt-out keywords (STOP/START: docs/decisions.md#opt-out)
 */
export async function startDlrIngest(
  config: DlrIngestConfig,
  logger: Logger,
  onInbound: InboundHook = optOutOnInbound,
): Promise<RunningDlrIngest> {
  const database = createDatabase(config.DATABASE_URL, {
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: "dlr-ingest",
    // Receipts waiting for a connection is backpressure (the carrier's window), not an outage.
    connectTimeoutMs: 30_000,
  });
  const { pool } = database;
  let stopping = false;
  const inFlight = new InFlight();
  const binds: CarrierBinds = new CarrierBinds({
    logger,
    enquireLinkIntervalMs: config.SMPP_ENQUIRE_LINK_MS,
    responseTimeoutMs: config.SMPP_RESPONSE_TIMEOUT_MS,
    onDeliverSm: (carrierId, pdu) => inFlight.track(() => handleDeliverSm(carrierId, pdu)),
  });
  const metrics = new Metrics(() =>
    binds.summary().map(({ carrierId, binds: configured, bound }) => ({ carrierId, configured, bound })),
  );
  const handleDeliverSm = createDeliverSmHandler({
    pool,
    logger,
    metrics,
    isStopping: () => stopping,
    receivedBy: INSTANCE_NAME,
    onInbound,
  });

  const box = createSecretBox(config.SECRET_ENCRYPTION_KEY);
  const refreshCarriers = async () => binds.reconcile(await loadEnabledCarriers(database.prisma, box));
  const logLoopError = (what: string) => (error: unknown) =>
    logger.error(`${what} failed; trying again at the next interval`, {
      error: error instanceof Error ? error.message : String(error),
    });
  // A database that is down at start does not stop the service: the loop binds once it answers.
  await refreshCarriers().catch(logLoopError("carrier refresh"));
  const refreshLoop = runPeriodically(
    refreshCarriers,
    config.CARRIER_REFRESH_MS,
    logLoopError("carrier refresh"),
  );
  const sweepLoop = runPeriodically(
    async () => {
      const swept = await sweepUnmatched(pool, {
        olderThanMs: config.SWEEP_MIN_AGE_MS,
        maxAgeMs: config.SWEEP_MAX_AGE_MS,
      });
      if (swept.applied + swept.ignored > 0)
        logger.info("unmatched receipts settled by the sweep", { ...swept });
      for (const outcome of ["applied", "ignored"] as const)
        metrics.sweepSettled.inc({ outcome }, swept[outcome]);
    },
    config.SWEEP_INTERVAL_MS,
    logLoopError("unmatched receipt sweep"),
  );

  const inboundLoop = runPeriodically(
    async () => {
      const stored = await completeTimedOutGroups(
        pool,
        { olderThanMs: config.INBOUND_PART_TIMEOUT_MS },
        onInbound,
      );
      if (stored.length > 0) {
        metrics.inboundTimedOut.inc(stored.length);
        for (const message of stored)
          metrics.inbound.inc({ outcome: message.accountId ? "assigned" : "unassigned" });
        logger.warn("inbound messages stored incomplete: their parts timed out", {
          inbound_ids: stored.map((message) => message.id),
        });
      }
      await purgeStoredParts(pool, config.INBOUND_PART_KEEP_MS);
    },
    config.INBOUND_SWEEP_INTERVAL_MS,
    logLoopError("inbound part sweep"),
  );

  const app = buildApp({
    pool,
    logger,
    metrics,
    receiptToken: config.HTTP_RECEIPT_TOKEN,
    readiness: { postgres: async () => void (await pool.query("SELECT 1")) },
    isShuttingDown: () => stopping,
  });
  const server = app.listen(config.PORT, config.HOST);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  logger.info("dlr-ingest listening", { port, http_receipts: Boolean(config.HTTP_RECEIPT_TOKEN) });

  return {
    server,
    port,
    binds,
    refreshCarriers,
    async stop() {
      if (stopping) return;
      stopping = true;
      await Promise.all([refreshLoop.stop(), sweepLoop.stop(), inboundLoop.stop()]);
      // Receipts already being applied commit and are acknowledged; new ones are handed back
      // (HTTP ones get 503). The port closes last, so /readyz answers 503 until then.
      await inFlight.idle(config.SHUTDOWN_GRACE_MS);
      await binds.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // HTTP receipts admitted before the stop get the grace to commit; then their connections go.
      const cut = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_GRACE_MS);
      await closed;
      clearTimeout(cut);
      await database.close();
      logger.info("dlr-ingest stopped");
    },
  };
}
