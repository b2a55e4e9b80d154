import type { Server } from "node:http";
import { createDatabase } from "@sms/db";
import type { Logger } from "@sms/logger";
import {
  completeTimedOutGroups,
  createDeliverSmHandler,
  createInboundIntake,
  purgeStoredParts,
  sweepUnmatched,
  type InboundHook,
} from "@sms/carrier-receipts";
import {
  InFlight,
  closeHttpServer,
  listenExpress,
  orderedStop,
  readinessChecks,
  startLoop,
} from "@sms/service-runtime";
import { keywordsOnInbound } from "@sms/suppressions";
import { CarrierBinds } from "./carrier-binds";
import { createSecretBox } from "@sms/secret-box";
import { loadEnabledCarriers } from "./carriers";
import type { DlrIngestConfig } from "./config";
import { buildApp } from "./http/app";
import { INSTANCE_NAME } from "./instance";
import { Metrics } from "./metrics";

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
 * @param inboundHook runs in the transaction storing each inbound message, on binds, over HTTP and
 *   in the timeout sweep alike: by default the keywords (STOP/START change the account's list:
 *   docs/decisions.md#opt-out; auto-replies: docs/api.md#keyword-auto-replies)
 */
export async function startDlrIngest(
  config: DlrIngestConfig,
  logger: Logger,
  inboundHook?: InboundHook,
): Promise<RunningDlrIngest> {
  const onInbound =
    inboundHook ??
    keywordsOnInbound({ maxSegments: config.MAX_SEGMENTS, creditsPerSegment: config.CREDITS_PER_SEGMENT });
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
  // One intake for the receiver binds and the HTTP endpoint: their messages share batches.
  const inbound = createInboundIntake(pool, onInbound);
  const handleDeliverSm = createDeliverSmHandler({
    pool,
    logger,
    metrics,
    isStopping: () => stopping,
    receivedBy: INSTANCE_NAME,
    inbound,
  });

  const box = createSecretBox(config.SECRET_ENCRYPTION_KEY);
  const refreshCarriers = async () =>
    binds.reconcile(await loadEnabledCarriers(database.prisma, box, logger));
  // A database that is down at start does not stop the service: the loop binds once it answers.
  await refreshCarriers().catch((error: unknown) =>
    logger.error("carrier refresh failed; trying again at the next interval", {
      error: error instanceof Error ? error.message : String(error),
    }),
  );
  const refreshLoop = startLoop({
    name: "carrier refresh",
    intervalMs: config.CARRIER_REFRESH_MS,
    firstTickAfterMs: config.CARRIER_REFRESH_MS,
    logger,
    tick: refreshCarriers,
  });
  const sweepLoop = startLoop({
    name: "unmatched receipt sweep",
    intervalMs: config.SWEEP_INTERVAL_MS,
    firstTickAfterMs: config.SWEEP_INTERVAL_MS,
    logger,
    tick: async () => {
      const swept = await sweepUnmatched(pool, {
        olderThanMs: config.SWEEP_MIN_AGE_MS,
        maxAgeMs: config.SWEEP_MAX_AGE_MS,
      });
      if (swept.applied + swept.ignored > 0)
        logger.info("unmatched receipts settled by the sweep", { ...swept });
      for (const outcome of ["applied", "ignored"] as const)
        metrics.sweepSettled.inc({ outcome }, swept[outcome]);
    },
  });

  const inboundLoop = startLoop({
    name: "inbound part sweep",
    intervalMs: config.INBOUND_SWEEP_INTERVAL_MS,
    firstTickAfterMs: config.INBOUND_SWEEP_INTERVAL_MS,
    logger,
    tick: async () => {
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
  });

  const app = buildApp({
    pool,
    logger,
    metrics,
    receiptToken: config.HTTP_RECEIPT_TOKEN,
    inbound,
    readiness: readinessChecks({ postgres: pool }),
    isShuttingDown: () => stopping,
  });
  const server = listenExpress(app, config.PORT, config.HOST);
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
    // Each wait below gets the whole SHUTDOWN_TIMEOUT_MS, as before the one ordered list.
    stop: orderedStop({
      timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
      logger,
      steps: [
        { name: "refuse new receipts", run: () => (stopping = true) },
        {
          name: "loops",
          run: () => Promise.all([refreshLoop.stop(), sweepLoop.stop(), inboundLoop.stop()]),
        },
        {
          // Receipts already being applied commit and are acknowledged; new ones are handed back
          // (HTTP ones get 503). The port closes last, so /readyz answers 503 until then.
          name: "receipts in flight",
          run: () => inFlight.idle(config.SHUTDOWN_TIMEOUT_MS),
        },
        { name: "binds", run: () => binds.close() },
        {
          name: "http",
          // HTTP receipts admitted before the stop get the rest of the bound to commit; then their connections go.
          run: ({ left }) => closeHttpServer(server, left()),
        },
        { name: "database", run: () => database.close() },
        { name: "log", run: () => logger.info("dlr-ingest stopped") },
      ],
    }),
  };
}
