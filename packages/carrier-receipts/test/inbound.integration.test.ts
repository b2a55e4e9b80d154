import pg from "pg";
import { encodeGsm7, encodeUcs2 } from "@sms/sms-encoding";
import type { DeliverSm } from "@sms/smpp";
import { createTestWorld, type TestWorld } from "@sms/testing";
import {
  completeTimedOutGroups,
  purgeStoredParts,
  readInboundPdu,
  storeInboundPiece,
  type StoredInbound,
} from "../src";
import { insertAccount } from "./fixtures";

let world: TestWorld;
let pool: pg.Pool;
let accountId: string;
let numberSeq = 0;
/** A fresh number per test, owned by the account: groups of different tests never meet. */
const ownedNumber = async () => {
  const number = `+1415555${String(1000 + ++numberSeq)}`;
  await pool.query("INSERT INTO inbound_numbers (number, account_id) VALUES ($1, $2)", [number, accountId]);
  return number;
};

beforeAll(async () => {
  world = await createTestWorld();
  pool = world.pool(10);
  accountId = await insertAccount(pool);
});
afterAll(async () => {
  await world.destroy();
});

function deliverSm(fields: Partial<DeliverSm> & { to: string; from?: string }): DeliverSm {
  const { to, from, ...rest } = fields;
  return {
    command: "deliver_sm",
    command_id: 5,
    command_status: 0,
    sequence_number: 1,
    command_length: 0,
    source_addr: from ?? "+447700900123",
    destination_addr: to,
    esm_class: 0,
    data_coding: 0,
    short_message: Buffer.alloc(0),
    ...rest,
  };
}

/** The UCS-2 parts of `text` with an 8-bit concatenation UDH, split every `octets` (even). */
function udhParts(text: string, reference: number, octets = 8): Buffer[] {
  const bytes = encodeUcs2(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += octets) chunks.push(bytes.subarray(i, i + octets));
  return chunks.map((chunk, i) =>
    Buffer.concat([Buffer.from([0x05, 0x00, 0x03, reference, chunks.length, i + 1]), chunk]),
  );
}

const store = (pdu: DeliverSm, carrier = "car_a") => storeInboundPiece(pool, carrier, readInboundPdu(pdu));

async function rowsTo(to: string) {
  const { rows } = await pool.query(
    "SELECT id, account_id, from_addr, to_addr, text, encoding, segments, flags FROM inbound_messages WHERE to_addr = $1",
    [to],
  );
  return rows;
}

async function outboxOf(messageId: string) {
  const { rows } = await pool.query(
    "SELECT type, account_id, payload FROM outbox_events WHERE message_id = $1",
    [messageId],
  );
  return rows;
}

describe("storing inbound messages", () => {
  it("stores a single GSM-7 message for the account owning the number, with a message.received event", async () => {
    const to = await ownedNumber();
    // The carrier writes the number without + (international TON): it still matches.
    const result = await store(
      deliverSm({
        to: to.slice(1),
        dest_addr_ton: 1,
        short_message: Buffer.from(encodeGsm7("Hi {there} €5")),
      }),
    );
    expect(result.outcome).toBe("assigned");
    const [row] = await rowsTo(to);
    expect(row).toMatchObject({
      account_id: accountId,
      text: "Hi {there} €5",
      encoding: "GSM-7",
      segments: 1,
      flags: [],
    });
    expect(row.id).toMatch(/^in_[0-9A-HJKMNP-TV-Z]{26}$/);
    const events = await outboxOf(row.id);
    expect(events).toEqual([
      {
        type: "message.received",
        account_id: accountId,
        payload: expect.objectContaining({ from: "+447700900123", to, text: "Hi {there} €5", segments: 1 }),
      },
    ]);
  });

  it("reassembles a 3-part Arabic message arriving out of order on two binds, once", async () => {
    const to = await ownedNumber();
    const text = "مرحبا بكم في خدمتنا، شكرا لكم على رسالتكم 😀";
    const parts = udhParts(text, 0x2a, 32);
    expect(parts).toHaveLength(3);
    const pdu = (part: Buffer) => deliverSm({ to, esm_class: 0x40, data_coding: 0x08, short_message: part });
    expect((await store(pdu(parts[2]!), "car_b")).outcome).toBe("part_waiting");
    // The same part again (the carrier did not see our answer): acknowledged, not stored twice.
    expect((await store(pdu(parts[2]!), "car_b")).outcome).toBe("duplicate_part");
    const [first, last] = await Promise.all([store(pdu(parts[0]!), "car_b"), store(pdu(parts[1]!), "car_b")]);
    expect([first.outcome, last.outcome].sort()).toEqual(["assigned", "part_waiting"]);
    // Redelivered after the message was stored: still recognised.
    expect((await store(pdu(parts[1]!), "car_b")).outcome).toBe("duplicate_part");
    const rows = await rowsTo(to);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ text, encoding: "UCS-2", segments: 3, flags: [] });
    expect(await outboxOf(rows[0].id)).toHaveLength(1);
  });

  it("reassembles parts numbered with the SAR TLVs and a 16-bit UDH reference", async () => {
    const to = await ownedNumber();
    for (const seq of [2, 1])
      await store(
        deliverSm({
          to,
          short_message: Buffer.from(seq === 1 ? "Hello " : "world", "latin1"),
          data_coding: 3,
          sar_msg_ref_num: 777,
          sar_total_segments: 2,
          sar_segment_seqnum: seq,
        }),
      );
    const udh16 = (seq: number, body: string) =>
      Buffer.concat([Buffer.from([0x06, 0x08, 0x04, 0x12, 0x34, 2, seq]), Buffer.from(body, "latin1")]);
    await store(deliverSm({ to, esm_class: 0x40, data_coding: 3, short_message: udh16(2, "ü!") }));
    await store(deliverSm({ to, esm_class: 0x40, data_coding: 3, short_message: udh16(1, "Grüße ") }));
    expect((await rowsTo(to)).map((row) => row.text).sort()).toEqual(["Grüße ü!", "Hello world"]);
  });

  it("stores a message to a number nobody owns unassigned, with no event", async () => {
    const result = await store(deliverSm({ to: "+19995550100", short_message: Buffer.from("who?") }));
    expect(result.outcome).toBe("unassigned");
    const [row] = await rowsTo("+19995550100");
    expect(row).toMatchObject({ account_id: null, text: "who?" });
    expect(await outboxOf(row.id)).toEqual([]);
  });

  it("keeps bad input as a clear record: malformed UDH, part number above the total, unknown coding, empty, alphanumeric from", async () => {
    const to = await ownedNumber();
    const outcomes = [
      await store(deliverSm({ to, esm_class: 0x40, short_message: Buffer.from([0x09, 0x00, 0x03, 1]) })),
      await store(
        deliverSm({
          to,
          esm_class: 0x40,
          short_message: Buffer.concat([Buffer.from([5, 0, 3, 9, 2, 3]), Buffer.from("x")]),
        }),
      ),
      await store(deliverSm({ to, data_coding: 0x04, short_message: Buffer.from([0xca, 0xfe]) })),
      await store(deliverSm({ to, short_message: Buffer.alloc(0) })),
      await store(deliverSm({ to, from: "ACME Bank", short_message: Buffer.from("alpha") })),
    ];
    expect(outcomes.map((o) => o.outcome)).toEqual([
      "assigned",
      "assigned",
      "assigned",
      "assigned",
      "assigned",
    ]);
    const byId = new Map((await rowsTo(to)).map((row) => [row.id, row]));
    const stored = outcomes.map((o) => byId.get((o.message as StoredInbound).id));
    expect(stored.map((row) => [row.text, row.encoding, row.flags])).toEqual([
      ["09000301", "hex", ["malformed_udh"]],
      ["x", "GSM-7", ["invalid_part_number"]],
      ["cafe", "hex", ["undecodable"]],
      ["", "GSM-7", ["empty"]],
      ["alpha", "GSM-7", []],
    ]);
    expect(stored[4].from_addr).toBe("ACME Bank");
  });

  it("stores a group that never completes as what arrived, flagged incomplete, and purges stored parts later", async () => {
    const to = await ownedNumber();
    // Six characters a part: "one tw", "o thre", "e four"; the middle one never comes.
    const parts = udhParts("one two three four", 9, 12);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    await store(deliverSm({ to, esm_class: 0x40, data_coding: 8, short_message: parts[0]! }));
    await store(deliverSm({ to, esm_class: 0x40, data_coding: 8, short_message: parts[2]! }));
    expect(await completeTimedOutGroups(pool, { olderThanMs: 60_000 })).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stored = await completeTimedOutGroups(pool, { olderThanMs: 10 });
    expect(stored.map((m) => [m.to, m.text, m.segments, m.flags])).toEqual([
      [to, "one twe four", 2, ["incomplete"]],
    ]);
    expect(await completeTimedOutGroups(pool, { olderThanMs: 10 })).toEqual([]);
    // Kept to recognise a redelivery, then purged.
    expect(
      (await store(deliverSm({ to, esm_class: 0x40, data_coding: 8, short_message: parts[0]! }))).outcome,
    ).toBe("duplicate_part");
    expect(await purgeStoredParts(pool, 0)).toBeGreaterThanOrEqual(2);
  });
});
