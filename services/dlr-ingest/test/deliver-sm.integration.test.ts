import os from "node:os";
import pg from "pg";
import { createLogger } from "@sms/logger";
import { CommandStatus, EsmClass, formatReceiptText, type DeliverSm } from "@sms/smpp";
import { createTestWorld, freePort, type TestWorld } from "@sms/testing";
import { createDeliverSmHandler as createHandler, type DeliverSmDeps } from "@sms/carrier-receipts";
import { INSTANCE_NAME } from "../src/instance";
import { Metrics } from "../src/metrics";
import { sampleValue } from "@sms/metrics";

/** The shared handler as dlr-ingest runs it: stored under this process's name. */
const createDeliverSmHandler = (deps: Omit<DeliverSmDeps, "receivedBy">) =>
  createHandler({ ...deps, receivedBy: INSTANCE_NAME });

let world: TestWorld;
let pool: pg.Pool;
const logger = createLogger("dlr-ingest", "error");

beforeAll(async () => {
  world = await createTestWorld();
  pool = world.pool(2);
});

afterAll(async () => {
  await world.destroy();
});

function deliverSm(fields: Partial<DeliverSm>): DeliverSm {
  return {
    command: "deliver_sm",
    command_status: 0,
    sequence_number: 1,
    source_addr: "447700900123",
    destination_addr: "Acme",
    esm_class: 0,
    data_coding: 0,
    short_message: Buffer.alloc(0),
    ...fields,
  } as DeliverSm;
}

const receiptPdu = (id: string) =>
  deliverSm({
    esm_class: EsmClass.DELIVERY_RECEIPT,
    short_message: Buffer.from(
      formatReceiptText({ id, submitDate: new Date(), doneDate: new Date(), stat: "DELIVRD" }),
    ),
  });

describe("the deliver_sm handler", () => {
  it("stores an inbound message (no receipt), runs the hook in its transaction, then acknowledges", async () => {
    const metrics = new Metrics();
    const hooked: string[] = [];
    const handle = createDeliverSmHandler({
      pool,
      logger,
      metrics,
      isStopping: () => false,
      onInbound: async (client, message) => {
        // Inside the storing transaction: the row is visible to it before the commit.
        const { rows } = await client.query("SELECT text FROM inbound_messages WHERE id = $1", [message.id]);
        hooked.push(`${message.from}:${rows[0].text}`);
      },
    });
    await expect(handle("car_x", deliverSm({ short_message: Buffer.from("STOP") }))).resolves.toBe(
      CommandStatus.ESME_ROK,
    );
    expect(hooked).toEqual(["+447700900123:STOP"]);
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM carrier_receipts");
    expect(rows[0].n).toBe(0);
    const inbound = await pool.query(
      "SELECT account_id, to_addr, text FROM inbound_messages WHERE carrier_id = 'car_x'",
    );
    expect(inbound.rows).toEqual([{ account_id: null, to_addr: "Acme", text: "STOP" }]);
    const text = await metrics.render();
    expect(sampleValue(text, "sms_dlr_deliver_sm_total", { kind: "mo", carrier_id: "car_x" })).toBe(1);
    expect(sampleValue(text, "sms_inbound_total", { outcome: "unassigned" })).toBe(1);
  });

  it("asks the carrier to redeliver an inbound message it could not store (the hook failed: nothing kept)", async () => {
    const metrics = new Metrics();
    const handle = createDeliverSmHandler({
      pool,
      logger,
      metrics,
      isStopping: () => false,
      onInbound: async () => {
        throw new Error("suppression list unavailable");
      },
    });
    await expect(handle("car_fail", deliverSm({ short_message: Buffer.from("hello") }))).rejects.toThrow(
      "suppression list unavailable",
    );
    const { rows } = await pool.query(
      "SELECT count(*)::int AS n FROM inbound_messages WHERE carrier_id = 'car_fail'",
    );
    expect(rows[0].n).toBe(0);
    expect(sampleValue(await metrics.render(), "sms_inbound_total", { outcome: "error" })).toBe(1);
  });

  it("acknowledges a receipt once it is stored", async () => {
    const handle = createDeliverSmHandler({ pool, logger, metrics: new Metrics(), isStopping: () => false });
    await expect(handle("car_x", receiptPdu("abc123"))).resolves.toBe(CommandStatus.ESME_ROK);
    const { rows } = await pool.query(
      "SELECT carrier_message_id, state, outcome, raw, received_by FROM carrier_receipts WHERE carrier_id = 'car_x'",
    );
    expect(rows).toEqual([
      expect.objectContaining({
        carrier_message_id: "abc123",
        state: "delivered",
        outcome: "unmatched",
        raw: expect.objectContaining({ stat: "DELIVRD" }),
        // Which replica stored it: this process.
        received_by: `${os.hostname()}:${process.pid}`,
      }),
    ]);
    // The quoted message text is the customer's: never stored.
    expect(rows[0].raw).not.toHaveProperty("text");
  });

  it("throws when the database cannot store the receipt (the SMPP client then answers ESME_RX_T_APPN)", async () => {
    const dead = new pg.Pool({
      connectionString: `postgresql://postgres@127.0.0.1:${await freePort()}/none`,
      connectionTimeoutMillis: 1000,
    });
    try {
      const handle = createDeliverSmHandler({
        pool: dead,
        logger,
        metrics: new Metrics(),
        isStopping: () => false,
      });
      await expect(handle("car_x", receiptPdu("def456"))).rejects.toThrow();
    } finally {
      await dead.end();
    }
  });

  it("hands receipts back with ESME_RX_T_APPN once shutting down", async () => {
    const handle = createDeliverSmHandler({ pool, logger, metrics: new Metrics(), isStopping: () => true });
    await expect(handle("car_x", receiptPdu("ghi789"))).resolves.toBe(CommandStatus.ESME_RX_T_APPN);
  });
});
