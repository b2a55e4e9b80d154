import { newId } from "@sms/ids";
import { encodeGsm7 } from "@sms/sms-encoding";
import type { DeliverSm } from "@sms/smpp";
import { notifyReceiptsStored, storeReceiptsFor } from "@sms/customer-receipts";
import { waitFor } from "@sms/testing";
import { startHarness, type Harness } from "./harness";

// The sweep is a minute apart here: a receipt reaches the customer only by notification.
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ RECEIPT_SWEEP_MS: "60000" });
});
afterAll(() => h?.close());

/** What the outbox relay does for a final event: rows and NOTIFY in one transaction. */
async function relayDelivered(accountId: string, messageId: string): Promise<void> {
  const client = await h.pool.connect();
  try {
    await client.query("BEGIN");
    const event = {
      eventId: newId("evt"),
      accountId,
      messageId,
      status: "delivered" as const,
      previousStatus: "sent",
      sequence: 3,
      errorCode: null,
      occurredAt: new Date().toISOString(),
    };
    const { found, accountIds } = await storeReceiptsFor(client, [event]);
    expect(found).toEqual([true]);
    await notifyReceiptsStored(client, accountIds);
    await client.query("COMMIT");
  } finally {
    client.release();
  }
}

const listenerPid = async (): Promise<number | undefined> =>
  (
    await h.pool.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'smpp-server-receipts'",
    )
  ).rows[0]?.pid;

it("sends a receipt stored elsewhere as soon as it is committed, and again after its listening connection was cut", async () => {
  const customer = await h.addCustomer();
  const transmitter = await h.bind(customer, { bindType: "transmitter" });
  const received: DeliverSm[] = [];
  await h.bind(customer, { bindType: "receiver", onDeliverSm: (pdu) => void received.push(pdu) });
  const submit = async () =>
    (
      await transmitter.submit({
        source_addr: "ACME",
        destination_addr: "447911123456",
        dest_addr_ton: 1,
        data_coding: 0,
        registered_delivery: 1,
        short_message: Buffer.from(encodeGsm7("Your code")),
      } as never)
    ).message_id!;

  const first = await submit();
  await waitFor(listenerPid, { what: "the listening connection" });
  await relayDelivered(customer.accountId, first);
  await waitFor(async () => received.length === 1, { what: "the first receipt", timeoutMs: 3000 });
  expect(received[0]!.receipted_message_id).toBe(first);

  const cut = (await listenerPid())!;
  await h.pool.query("SELECT pg_terminate_backend($1)", [cut]);
  await waitFor(async () => ((await listenerPid()) ?? cut) !== cut, { what: "a new listening connection" });
  const second = await submit();
  await relayDelivered(customer.accountId, second);
  await waitFor(async () => received.length === 2, { what: "the second receipt", timeoutMs: 3000 });
  expect(received[1]!.receipted_message_id).toBe(second);
});
