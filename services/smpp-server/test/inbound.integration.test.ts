import { readInboundPdu, storeInboundPiece } from "@sms/carrier-receipts";
import { encodeUcs2 } from "@sms/sms-encoding";
import { CommandStatus, type DeliverSm } from "@sms/smpp";
import { waitFor } from "@sms/testing";
import { startHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ RECEIPT_RETRY_MS: "300", RECEIPT_SWEEP_MS: "200" });
});
afterAll(() => h?.close());

/** What dlr-ingest does with a carrier's deliver_sm: the same code, on this database. */
async function carrierDelivers(fields: Partial<DeliverSm>) {
  const pdu = {
    command: "deliver_sm",
    esm_class: 0,
    data_coding: 0,
    short_message: Buffer.alloc(0),
    ...fields,
  };
  return storeInboundPiece(h.pool, "car_x", readInboundPdu(pdu as DeliverSm));
}

const pending = async (accountId: string) =>
  (await h.pool.query("SELECT count(*)::int AS n FROM smpp_inbound WHERE account_id = $1", [accountId]))
    .rows[0].n;

/** Joins deliver_sm parts by their 8-bit UDH into the texts they carry. */
function reassemble(parts: DeliverSm[]): string {
  const sorted = [...parts].sort((a, b) => a.short_message[5]! - b.short_message[5]!);
  expect(new Set(sorted.map((p) => p.short_message[3])).size).toBe(1);
  return Buffer.concat(sorted.map((p) => p.short_message.subarray(6)))
    .swap16()
    .toString("utf16le");
}

describe("inbound messages as deliver_sm to the customer's binds", () => {
  it("holds a 3-part Arabic message while nothing is bound, then writes it as concatenated parts, esm_class 0", async () => {
    const customer = await h.addCustomer();
    await h.pool.query("INSERT INTO inbound_numbers (number, account_id) VALUES ('+14155550177', $1)", [
      customer.accountId,
    ]);
    const text =
      "مرحبا! هذه رسالة طويلة من عميل يرد على تذكير الموعد. نعم، سأحضر غدا في الساعة الثالثة. شكرا جزيلا لكم على التذكير";
    const octets = encodeUcs2(text);
    const chunks = [octets.subarray(0, 100), octets.subarray(100, 200), octets.subarray(200)];
    for (const seq of [2, 3, 1])
      await carrierDelivers({
        source_addr: "447700900123",
        source_addr_ton: 1,
        destination_addr: "14155550177",
        dest_addr_ton: 1,
        esm_class: 0x40,
        data_coding: 8,
        short_message: Buffer.concat([Buffer.from([5, 0, 3, 77, 3, seq]), chunks[seq - 1]!]),
      });
    // No bind yet: held.
    expect(await pending(customer.accountId)).toBeGreaterThan(1);

    const received: DeliverSm[] = [];
    let refuseFirst = true;
    await h.bind(customer, {
      bindType: "receiver",
      onDeliverSm: (pdu) => {
        // The first part is refused once: it comes again.
        if (refuseFirst) {
          refuseFirst = false;
          return CommandStatus.ESME_RX_T_APPN;
        }
        received.push(pdu);
        return undefined;
      },
    });
    await waitFor(async () => (await pending(customer.accountId)) === 0, {
      what: "every part acknowledged",
      timeoutMs: 10_000,
    });
    expect(received.length).toBeGreaterThan(1);
    for (const pdu of received)
      expect(pdu).toMatchObject({
        esm_class: 0x40,
        data_coding: 8,
        source_addr: "447700900123",
        destination_addr: "14155550177",
      });
    expect(reassemble(received)).toBe(text);
  });

  it("queues nothing for an account without SMPP credentials or a number nobody owns", async () => {
    const before = (await h.pool.query("SELECT count(*)::int AS n FROM smpp_inbound")).rows[0].n;
    await carrierDelivers({
      source_addr: "447700900124",
      destination_addr: "19995550100",
      short_message: Buffer.from("hi"),
    });
    expect((await h.pool.query("SELECT count(*)::int AS n FROM smpp_inbound")).rows[0].n).toBe(before);
  });
});
