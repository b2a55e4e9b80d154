import crypto from "node:crypto";
import pg from "pg";
import { DATABASE_SESSION_OPTIONS } from "@sms/db";
import { createCarrierSimulator, type CarrierSimulator } from "@sms/carrier-simulator";
import { createLogger } from "@sms/logger";
import {
  lockCarrierMessageId,
  matchPendingReceipts,
  receiptKeyOf,
  type ReceiptResult,
} from "@sms/carrier-receipts";
import {
  insertAccount,
  insertCarrier,
  insertMessage,
  insertSegment,
  type Db,
} from "@sms/carrier-receipts/test/fixtures";
import { SmppClient } from "@sms/smpp";
import { createTestWorld, waitFor, type TestWorld } from "@sms/testing";
import { loadDlrIngestConfig } from "../src/config";
import { startDlrIngest, type RunningDlrIngest } from "../src/service";

export const RECEIPT_TOKEN = "test-receipt-token-0123456789";

/** A private database, a carrier simulator, a carrier row pointing at it, and dlr-ingest bound to it. */
export interface Harness {
  world: TestWorld;
  pool: pg.Pool;
  simulator: CarrierSimulator;
  carrier: { id: string; systemId: string; password: string };
  accountId: string;
  service: RunningDlrIngest;
  baseUrl: string;
  /** Submits one segment to the simulator as the dispatcher would, and records it: returns our message id and the carrier's. */
  send(
    to: string,
    options?: { record?: boolean; db?: Db },
  ): Promise<{ messageId: string; carrierMessageId: string }>;
  /** The dispatcher's side of a submit response: lock, set the id, match pending receipts, commit. */
  recordSubmitted(
    messageId: string,
    carrierMessageId: string,
    client?: pg.PoolClient,
  ): Promise<ReceiptResult[]>;
  waitForStatus(messageId: string, status: string): Promise<void>;
  close(): Promise<void>;
}

export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const world = await createTestWorld();
  const pool = new pg.Pool({
    connectionString: world.databaseUrl,
    max: 5,
    options: DATABASE_SESSION_OPTIONS,
  });
  // pool.end() resolves before PostgreSQL has seen every Terminate, so world.destroy()'s
  // DROP DATABASE … WITH (FORCE) can still signal a closing connection: without a
  // listener that 'error' would crash the test process.
  pool.on("error", () => undefined);
  const carrier = { systemId: `sys${crypto.randomBytes(3).toString("hex")}`, password: "secret12" };
  const simulator = await createCarrierSimulator({
    accounts: { [carrier.systemId]: carrier.password },
    // Receipts soon after the submit, retried quickly when not acknowledged.
    settings: { receiptDelayMs: 20, receiptRetryMs: 100 },
    logger: createLogger("carrier-simulator", process.env.TEST_LOG_LEVEL ?? "error"),
  });
  const carrierId = await insertCarrier(pool, { port: simulator.smppPort, ...carrier });
  const accountId = await insertAccount(pool);
  const config = loadDlrIngestConfig({
    ...world.env,
    PORT: "0",
    HOST: "127.0.0.1",
    HTTP_RECEIPT_TOKEN: RECEIPT_TOKEN,
    ...env,
  });
  const service = await startDlrIngest(
    config,
    createLogger("dlr-ingest", process.env.TEST_LOG_LEVEL ?? "error"),
  );
  const transmitter = new SmppClient({
    host: "127.0.0.1",
    port: simulator.smppPort,
    systemId: carrier.systemId,
    password: carrier.password,
    bindType: "transmitter",
    reconnect: false,
    enquireLinkIntervalMs: 0,
  });
  const close = async () => {
    await transmitter.close();
    await service.stop();
    await simulator.close();
    await pool.end();
    await world.destroy();
  };
  try {
    await transmitter.connect();
    await waitFor(
      () =>
        simulator.stats().binds.some((b) => b.systemId === carrier.systemId && b.state.startsWith("bound")),
      { what: "dlr-ingest's receiver bind" },
    );
  } catch (error) {
    await close();
    throw error;
  }

  const recordSubmitted = async (messageId: string, carrierMessageId: string, given?: pg.PoolClient) => {
    const client = given ?? (await pool.connect());
    try {
      await client.query("BEGIN");
      await lockCarrierMessageId(client, carrierId, receiptKeyOf(carrierMessageId)!);
      await client.query(
        `UPDATE message_segments SET status = 'submitted', carrier_message_id = $2, submitted_at = now()
         WHERE message_id = $1 AND seq = 1`,
        [messageId, carrierMessageId],
      );
      const matched = await matchPendingReceipts(client, {
        carrierId,
        receiptKey: receiptKeyOf(carrierMessageId)!,
      });
      await client.query("COMMIT");
      return matched;
    } finally {
      if (!given) client.release();
    }
  };

  return {
    world,
    pool,
    simulator,
    carrier: { id: carrierId, ...carrier },
    accountId,
    service,
    baseUrl: `http://127.0.0.1:${service.port}`,
    async send(to, { record = true, db = pool } = {}) {
      const messageId = await insertMessage(db, { accountId, to });
      await insertSegment(db, { messageId, seq: 1, carrierId });
      const response = await transmitter.submit({
        source_addr: "Acme",
        source_addr_ton: 5,
        destination_addr: to.replace("+", ""),
        dest_addr_ton: 1,
        dest_addr_npi: 1,
        registered_delivery: 1,
        data_coding: 0,
        short_message: Buffer.from("hello"),
      });
      if (response.command_status !== 0 || !response.message_id)
        throw new Error(`submit refused: ${response.command_status}`);
      if (record)
        await recordSubmitted(
          messageId,
          response.message_id,
          db === pool ? undefined : (db as pg.PoolClient),
        );
      return { messageId, carrierMessageId: response.message_id };
    },
    recordSubmitted,
    async waitForStatus(messageId, status) {
      await waitFor(
        async () =>
          (await pool.query("SELECT status FROM messages WHERE id = $1", [messageId])).rows[0]?.status ===
          status,
        { what: `message ${messageId} ${status}` },
      );
    },
    close,
  };
}
