import { encodeGsm7 } from "@sms/sms-encoding";
import { CommandStatus, EsmClass, MessageState, type DeliverSm, type SmppClient } from "@sms/smpp";
import { waitFor } from "@sms/testing";
import { createDlrOutProcessor, SubmitRecordMissingError } from "../src/dlr-out.processor";
import { startHarness, type Harness, type TestCustomer } from "./harness";

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ RECEIPT_RETRY_MS: "300", CONCAT_TIMEOUT_MS: "1000" });
});
afterAll(() => h?.close());

const base = { source_addr: "ACME", destination_addr: "447911123456", dest_addr_ton: 1, data_coding: 0 };
const gsm = (text: string) => Buffer.from(encodeGsm7(text));

/** A customer with a transmitter for submits and a receiver that records every deliver_sm. */
async function customerWithReceiver(answer: (pdu: DeliverSm) => number | void = () => undefined): Promise<{
  customer: TestCustomer;
  transmitter: SmppClient;
  received: DeliverSm[];
  bindReceiver(): Promise<SmppClient>;
}> {
  const customer = await h.addCustomer();
  const transmitter = await h.bind(customer, { bindType: "transmitter" });
  const received: DeliverSm[] = [];
  const bindReceiver = () =>
    h.bind(customer, {
      bindType: "receiver",
      onDeliverSm: (pdu) => {
        received.push(pdu);
        return answer(pdu);
      },
    });
  return { customer, transmitter, received, bindReceiver };
}

async function submit(client: SmppClient, fields: Record<string, unknown> = {}): Promise<string> {
  const response = await client.submit({
    ...base,
    short_message: gsm("Your code"),
    registered_delivery: 1,
    ...fields,
  } as never);
  expect(response.command_status).toBe(0);
  return response.message_id!;
}

const pendingReceipts = async (accountId: string) =>
  (await h.pool.query("SELECT count(*)::int AS n FROM smpp_receipts WHERE account_id = $1", [accountId]))
    .rows[0].n;

describe("receipts as deliver_sm", () => {
  it.each([
    ["delivered", null, "DELIVRD", "000", MessageState.DELIVERED],
    ["failed", "UNDELIVERABLE", "UNDELIV", "001", MessageState.UNDELIVERABLE],
    ["failed", "REJECTED", "REJECTD", "002", MessageState.REJECTED],
    ["failed", "EXPIRED", "EXPIRED", "003", MessageState.EXPIRED],
    ["failed", "RECEIPT_TIMEOUT", "UNKNOWN", "007", MessageState.UNKNOWN],
    ["canceled", null, "DELETED", "099", MessageState.DELETED],
  ] as const)(
    "a message %s (%s) gives one receipt stat:%s err:%s",
    async (status, errorCode, stat, err, state) => {
      const c = await customerWithReceiver();
      await c.bindReceiver();
      const id = await submit(c.transmitter);
      await h.enqueueReceipt({ accountId: c.customer.accountId, messageId: id, status, errorCode });
      await waitFor(() => c.received.length === 1, { what: "one deliver_sm" });
      const pdu = c.received[0]!;
      expect(pdu).toMatchObject({
        esm_class: EsmClass.DELIVERY_RECEIPT,
        source_addr: "447911123456",
        destination_addr: "ACME",
        data_coding: 1,
        receipted_message_id: id,
        message_state: state,
      });
      expect(pdu.short_message.toString("latin1")).toMatch(
        new RegExp(
          `^id:${id} sub:001 dlvrd:00[01] submit date:\\d{10} done date:\\d{10} stat:${stat} err:${status === "delivered" ? "000" : err} text:Your code$`,
        ),
      );
      await waitFor(async () => (await pendingReceipts(c.customer.accountId)) === 0, {
        what: "receipt deleted after ESME_ROK",
      });
    },
  );

  it("sends none for queued/sent, none when registered_delivery is 0, and only failures for 2", async () => {
    const c = await customerWithReceiver();
    await c.bindReceiver();
    const none = await submit(c.transmitter, { registered_delivery: 0 });
    const failuresOnly = await submit(c.transmitter, { registered_delivery: 2 });
    const failed = await submit(c.transmitter, { registered_delivery: 2 });
    const jobs = [
      await h.enqueueReceipt({
        accountId: c.customer.accountId,
        messageId: none,
        status: "delivered",
        errorCode: null,
      }),
      await h.enqueueReceipt({
        accountId: c.customer.accountId,
        messageId: failuresOnly,
        status: "sent",
        errorCode: null,
      }),
      await h.enqueueReceipt({
        accountId: c.customer.accountId,
        messageId: failuresOnly,
        status: "delivered",
        errorCode: null,
      }),
      await h.enqueueReceipt({
        accountId: c.customer.accountId,
        messageId: failed,
        status: "failed",
        errorCode: "EXPIRED",
      }),
    ];
    // Every job processed and every stored receipt acknowledged: nothing else can still arrive.
    await h.waitForReceiptJobs(jobs);
    await waitFor(async () => (await pendingReceipts(c.customer.accountId)) === 0, {
      what: "every stored receipt acknowledged",
    });
    expect(c.received.map((pdu) => pdu.receipted_message_id)).toEqual([failed]);
  });

  it("never sends a receipt to another account, whatever the job says", async () => {
    const owner = await customerWithReceiver();
    const other = await customerWithReceiver();
    await other.bindReceiver();
    const id = await submit(owner.transmitter);
    const job = await h.enqueueReceipt({
      accountId: other.customer.accountId,
      messageId: id,
      status: "delivered",
      errorCode: null,
    });
    // The job's first attempt is refused: no submit of that account has this message id.
    const refused = await waitFor(
      async () => {
        const state = await h.receiptJob(job);
        return state && state.attemptsMade >= 1 ? state : undefined;
      },
      { what: "the receipt job's first attempt" },
    );
    expect(refused.failedReason).toMatch(/no smpp_submits rows for msg_/);
    expect(other.received).toEqual([]);
    expect(await pendingReceipts(other.customer.accountId)).toBe(0);
  });

  it("keeps receipts while no receiver is bound, and delivers them when one binds", async () => {
    const c = await customerWithReceiver();
    const ids = [await submit(c.transmitter), await submit(c.transmitter), await submit(c.transmitter)];
    for (const id of ids)
      await h.enqueueReceipt({
        accountId: c.customer.accountId,
        messageId: id,
        status: "delivered",
        errorCode: null,
      });
    await waitFor(async () => (await pendingReceipts(c.customer.accountId)) === 3, {
      what: "three receipts kept",
    });
    await c.bindReceiver();
    await waitFor(() => c.received.length === 3, { what: "three deliver_sm after the bind" });
    expect(c.received.map((pdu) => pdu.receipted_message_id).sort()).toEqual([...ids].sort());
    await waitFor(async () => (await pendingReceipts(c.customer.accountId)) === 0, {
      what: "receipts deleted",
    });
  });

  it("sends a receipt again when the customer does not acknowledge it", async () => {
    let refusals = 2;
    const c = await customerWithReceiver(() => (refusals-- > 0 ? CommandStatus.ESME_RX_T_APPN : undefined));
    await c.bindReceiver();
    const id = await submit(c.transmitter);
    await h.enqueueReceipt({
      accountId: c.customer.accountId,
      messageId: id,
      status: "delivered",
      errorCode: null,
    });
    await waitFor(() => c.received.length === 3, {
      what: "two refusals and the acknowledged resend",
      timeoutMs: 5000,
    });
    expect(new Set(c.received.map((pdu) => pdu.receipted_message_id))).toEqual(new Set([id]));
    await waitFor(async () => (await pendingReceipts(c.customer.accountId)) === 0, {
      what: "receipt deleted",
    });
  });

  it("gives every part of a concatenated message its own receipt, under the id returned for that part", async () => {
    const c = await customerWithReceiver();
    await c.bindReceiver();
    const udh = (seq: number) => Buffer.from([0x05, 0x00, 0x03, 0x44, 2, seq]);
    const ids = [
      await submit(c.transmitter, {
        esm_class: EsmClass.UDHI,
        short_message: Buffer.concat([udh(1), gsm("first half ")]),
      }),
      await submit(c.transmitter, {
        esm_class: EsmClass.UDHI,
        short_message: Buffer.concat([udh(2), gsm("second half")]),
      }),
    ];
    const messageId = (await h.pool.query("SELECT message_id FROM smpp_submits WHERE id = $1", [ids[0]]))
      .rows[0].message_id;
    await h.enqueueReceipt({
      accountId: c.customer.accountId,
      messageId,
      status: "delivered",
      errorCode: null,
    });
    await waitFor(() => c.received.length === 2, { what: "a receipt per part" });
    expect(c.received.map((pdu) => pdu.receipted_message_id).sort()).toEqual([...ids].sort());
  });

  it("refuses the parts of a message that never completes, with a REJECTD receipt per part", async () => {
    const c = await customerWithReceiver();
    await c.bindReceiver();
    const lonely = await submit(c.transmitter, {
      esm_class: EsmClass.UDHI,
      short_message: Buffer.concat([Buffer.from([0x05, 0x00, 0x03, 0x45, 3, 1]), gsm("part one of three")]),
    });
    await waitFor(() => c.received.length === 1, {
      what: "the REJECTD receipt after CONCAT_TIMEOUT_MS",
      timeoutMs: 5000,
    });
    expect(c.received[0]).toMatchObject({
      receipted_message_id: lonely,
      message_state: MessageState.REJECTED,
    });
    expect(c.received[0]!.short_message.toString()).toMatch(/stat:REJECTD err:006/);
    const count = await h.pool.query("SELECT count(*)::int AS n FROM messages WHERE account_id = $1", [
      c.customer.accountId,
    ]);
    expect(count.rows[0].n).toBe(0);
  });

  it("falls back to the message row on a job's last attempt when its submit record was lost", async () => {
    const c = await customerWithReceiver();
    await c.bindReceiver();
    const id = await submit(c.transmitter);
    // As if PostgreSQL had crashed before the asynchronously committed record reached the disk.
    await h.pool.query("DELETE FROM smpp_submits WHERE id = $1", [id]);
    const woken: string[] = [];
    const processJob = createDlrOutProcessor(h.pool, (accounts) => woken.push(...accounts));
    const job = {
      eventId: `evt_${id.slice(4)}`,
      accountId: c.customer.accountId,
      messageId: id,
      status: "delivered" as const,
      previousStatus: "sent",
      sequence: 3,
      errorCode: null,
      occurredAt: new Date().toISOString(),
    };
    await expect(processJob(job)).rejects.toBeInstanceOf(SubmitRecordMissingError);
    await processJob(job, true);
    expect(woken).toEqual([c.customer.accountId]);
    const { rows } = await h.pool.query(
      "SELECT submit_id, source_addr, destination_addr FROM smpp_receipts WHERE message_id = $1",
      [id],
    );
    expect(rows).toEqual([{ submit_id: id, source_addr: "447911123456", destination_addr: "ACME" }]);
    // Another account's job for the same message still gets nothing.
    const stranger = await h.addCustomer();
    await processJob({ ...job, eventId: `evt_${id.slice(4, -1)}X`, accountId: stranger.accountId }, true);
    expect(await pendingReceipts(stranger.accountId)).toBe(0);
  });
});
