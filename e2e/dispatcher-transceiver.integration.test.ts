import os from "node:os";
import type pg from "pg";
import { createLogger } from "@sms/logger";
import { sampleValue } from "@sms/metrics";
import { BindError, CommandStatus, SmppClient, type BindType } from "@sms/smpp";
import { waitFor } from "@sms/testing";
import { loadDlrIngestConfig } from "@sms/dlr-ingest";
import { startDlrIngest } from "@sms/dlr-ingest";
import { startDispatchWorld, type DispatchWorld } from "@sms/dispatcher/test/harness";

/**
 * Over real SMPP, a carrier that knows only transceiver binds (Kannel's default,
 * many aggregators) and sends each receipt on a bind it took a submit on. No dlr-ingest runs: the
 * dispatcher's transceiver binds take the receipts and store them (docs/decisions.md#transceiver-binds).
 */
let w: DispatchWorld;
const THIS_PROCESS = `${os.hostname()}:${process.pid}`;
/** The simulator's receipt delay, but in the test that needs the receipt late. */
const RECEIPT_DELAY_MS = 20;

beforeAll(async () => {
  w = await startDispatchWorld({
    carriers: [{ id: "trx", transceiverBinds: 2 }],
    simulatorSettings: { bindTypes: ["transceiver"], settings: { receiptDelayMs: RECEIPT_DELAY_MS } },
  });
});

afterAll(async () => {
  await w?.stop();
});

const scrape = async () => (await fetch(`http://127.0.0.1:${w.dispatcher.port}/metrics`)).text();

/**
 * Writes to message_segments or carrier_receipts in this test's database that wait for a lock on
 * the table: a receipt that applies at once writes its segment (docs/decisions.md#applied-receipts),
 * one that came before its submit's record a carrier_receipts row.
 */
async function receiptWritesWaiting(): Promise<number> {
  const { rows } = await w.db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_locks
      WHERE relation IN ('message_segments'::regclass, 'carrier_receipts'::regclass) AND NOT granted
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
  );
  return rows[0]!.n;
}

async function bindAs(bindType: BindType): Promise<unknown> {
  const client = new SmppClient({
    host: "127.0.0.1",
    port: w.simulator.smppPort,
    systemId: "platform",
    password: "secret",
    bindType,
    reconnect: false,
  });
  try {
    await client.connect(5000);
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await client.close();
  }
}

describe("a transceiver-only carrier", () => {
  it("refuses transmitter and receiver binds: the dispatcher's binds are transceivers", async () => {
    for (const bindType of ["transmitter", "receiver"] as const) {
      const error = await bindAs(bindType);
      expect(error).toBeInstanceOf(BindError);
      expect((error as BindError).status).toBe(CommandStatus.ESME_RBINDFAIL);
    }
    expect(w.simulator.stats().bindsRefusedForType).toBe(2);
    const bound = w.simulator.stats().binds.filter((bind) => bind.state.startsWith("bound"));
    expect(bound.map((bind) => bind.state)).toEqual(["bound_trx", "bound_trx"]);
    expect(w.dispatcher.carriers.status().trx).toMatchObject({ bindType: "transceiver", bound: 2, total: 2 });
    const text = await scrape();
    const trx = { carrier_id: "trx", bind_type: "transceiver" };
    expect(sampleValue(text, "sms_smpp_carrier_binds", { ...trx, state: "bound" })).toBe(2);
    expect(sampleValue(text, "sms_smpp_window_capacity", { carrier_id: "trx" })).toBe(40);
  });

  it("takes the submit and gives the receipt back on a transceiver bind: sent → delivered or failed", async () => {
    const plan = [
      { to: "+14155551234", expect: "delivered" },
      { to: "+14155555678", expect: "delivered" },
      // The simulator's magic number for an UNDELIV receipt.
      { to: "+14155550001", expect: "failed" },
    ];
    const acknowledgedBefore = w.simulator.stats().receipts.acknowledged;
    const sent = [];
    for (const item of plan) sent.push({ ...item, id: (await w.send(item.to, `trx ${item.to}`)).id });
    for (const message of sent)
      expect(await w.waitForStatus(message.id, ["delivered", "failed"])).toBe(message.expect);
    // Each receipt applied: at once (its segment is its record, docs/decisions.md#applied-receipts),
    // or, when it overtook the submit's record (the simulator answers at once on the same bind),
    // kept as a row by this dispatcher and applied by that record.
    const segments = await w.db.pool.query<{ message_id: string; status: string }>(
      "SELECT message_id, status::text FROM message_segments WHERE message_id = ANY($1::text[])",
      [sent.map((m) => m.id)],
    );
    expect(Object.fromEntries(segments.rows.map((r) => [r.message_id, r.status]))).toEqual(
      Object.fromEntries(sent.map((m) => [m.id, m.expect])),
    );
    const { rows } = await w.db.pool.query<{ outcome: string; received_by: string }>(
      "SELECT outcome::text, received_by FROM carrier_receipts WHERE message_id = ANY($1::text[])",
      [sent.map((m) => m.id)],
    );
    expect(rows.every((r) => r.outcome === "applied" && r.received_by === THIS_PROCESS)).toBe(true);
    // The status is visible once the receipt's transaction commits, before the handler counts it;
    // the deliver_sm_resp goes out after the counters, so the carrier's acks prove they are there.
    await waitFor(() => w.simulator.stats().receipts.acknowledged >= acknowledgedBefore + plan.length, {
      what: "the carrier's acks of the three receipts",
    });
    const text = await scrape();
    expect(sampleValue(text, "sms_dlr_deliver_sm_total", { kind: "receipt", carrier_id: "trx" })).toBe(3);
    // Counted by what storing each did: applied, or unmatched until its submit's record came.
    const stored = (outcome: string) =>
      sampleValue(text, "sms_dlr_receipts_total", { source: "smpp", outcome }) ?? 0;
    expect(stored("applied") + stored("unmatched")).toBe(3);
  });

  it("acknowledges a receipt only once it is stored: a blocked store leaves it unacknowledged, and nothing is lost", async () => {
    const receiptsBefore = w.simulator.stats().receipts;
    // The receipt comes a while after the submit's record: the blocker below can be in place first.
    w.simulator.update({ receiptDelayMs: 2000 });
    const blocker: pg.PoolClient = await w.db.pool.connect();
    let messageId: string | undefined;
    try {
      messageId = (await w.send("+14155552222", "held receipt")).id;
      expect(await w.waitForStatus(messageId, ["sent"])).toBe("sent");
      // Holds every write that stores a receipt (reads go on) until the test commits.
      await blocker.query("BEGIN");
      await blocker.query("LOCK TABLE message_segments, carrier_receipts IN EXCLUSIVE MODE");
      // The receipt went out on a transceiver bind...
      await waitFor(() => w.simulator.stats().receipts.sent > receiptsBefore.sent, {
        what: "the receipt's deliver_sm",
      });
      // ...the dispatcher's write of it waits on the lock...
      await waitFor(async () => (await receiptWritesWaiting()) > 0, {
        what: "the receipt's write waiting on the lock",
      });
      // ...and it stays unacknowledged while it cannot be stored (an ack sent before the write
      // would be at the simulator by now: it would have left first).
      const held = w.simulator.stats().receipts;
      expect(held.acknowledged).toBe(receiptsBefore.acknowledged);
      expect(held.pending).toBeGreaterThanOrEqual(1);
      const segment = await w.db.pool.query(
        "SELECT status::text FROM message_segments WHERE message_id = $1",
        [messageId],
      );
      expect(segment.rows).toEqual([{ status: "submitted" }]);
    } finally {
      await blocker.query("COMMIT").catch(() => undefined);
      blocker.release();
      w.simulator.update({ receiptDelayMs: RECEIPT_DELAY_MS });
    }
    expect(await w.waitForStatus(messageId!, ["delivered", "failed"])).toBe("delivered");
    await waitFor(() => w.simulator.stats().receipts.acknowledged > receiptsBefore.acknowledged, {
      what: "the receipt's acknowledgement",
    });
    expect(w.simulator.stats().receipts.pending).toBe(0);
    const { rows } = await w.db.pool.query<{ status: string }>(
      "SELECT status::text FROM message_segments WHERE message_id = $1",
      [messageId],
    );
    expect(rows).toEqual([{ status: "delivered" }]);
  });

  it("gets no receiver binds from dlr-ingest: its receipts are the dispatcher's", async () => {
    const refusedBefore = w.simulator.stats().bindsRefusedForType;
    const dlr = await startDlrIngest(
      loadDlrIngestConfig({ ...w.world.env, PORT: "0", HOST: "127.0.0.1", CARRIER_REFRESH_MS: "100" }),
      createLogger("dlr-ingest-test", "error"),
    );
    try {
      await dlr.refreshCarriers();
      // A finished refresh round that holds no bind for the carrier: dlr-ingest creates a
      // carrier's receiver binds in the round that finds it, so none was ever started and no
      // refused bind (retried for ever) can come later.
      expect(dlr.binds.summary()).toEqual([{ carrierId: "trx", binds: 0, bound: 0 }]);
      expect(w.simulator.stats().bindsRefusedForType).toBe(refusedBefore);
    } finally {
      await dlr.stop();
    }
  });
});
