import { encodeGsm7, encodeUcs2 } from "@sms/sms-encoding";
import { CommandStatus, EsmClass, MessageState, type SmppClient } from "@sms/smpp";
import { applyOptOutKeyword } from "@sms/suppressions";
import { startHarness, type Harness, type TestCustomer } from "./harness";

let h: Harness;
let customer: TestCustomer;
let client: SmppClient;

beforeAll(async () => {
  h = await startHarness();
  customer = await h.addCustomer({ credits: 100 });
  client = await h.bind(customer, { bindType: "transceiver" });
});
afterAll(() => h?.close());

const to = "447911123456";
const base = {
  source_addr: "ACME",
  destination_addr: to,
  dest_addr_ton: 1,
  dest_addr_npi: 1,
  registered_delivery: 1,
};
const gsm = (text: string) => Buffer.from(encodeGsm7(text));
const arabic = "مرحبا بكم في خدمة الرسائل القصيرة";
const longArabic = `${arabic} ${arabic} ${arabic}`; // 101 characters: two UCS-2 parts

async function submitOk(fields: Record<string, unknown>): Promise<string> {
  const response = await client.submit({
    data_coding: 0,
    short_message: Buffer.alloc(0),
    ...base,
    ...fields,
  } as never);
  expect(response.command_status).toBe(CommandStatus.ESME_ROK);
  expect(response.message_id).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
  return response.message_id!;
}

async function submitStatus(fields: Record<string, unknown>): Promise<number> {
  return (
    await client.submit({ data_coding: 0, short_message: Buffer.alloc(0), ...base, ...fields } as never)
  ).command_status;
}

function udh8(reference: number, total: number, seq: number): Buffer {
  return Buffer.from([0x05, 0x00, 0x03, reference, total, seq]);
}
function udh16(reference: number, total: number, seq: number): Buffer {
  return Buffer.from([0x06, 0x08, 0x04, reference >> 8, reference & 0xff, total, seq]);
}

/** Whole messages of the account whose submit ids are `ids`, by submit id. */
async function messagesOf(ids: string[]) {
  const { rows } = await h.pool.query(
    `SELECT s.id AS submit_id, m.id, m.body, m.to_number, m.sender_id, m.source, m.segment_count, m.encoding, m.status
     FROM smpp_submits s JOIN messages m ON m.id = s.message_id WHERE s.id = ANY($1::text[])`,
    [ids],
  );
  return rows;
}

describe("submit_sm through the acceptance path", () => {
  it("accepts GSM-7 text, stores it as an SMPP message of the account, and answers with the message id", async () => {
    const id = await submitOk({ data_coding: 0, short_message: gsm("Price: 5€ @ shop_1 {ok}") });
    expect(await h.message(id)).toMatchObject({
      account_id: customer.accountId,
      source: "smpp",
      body: "Price: 5€ @ shop_1 {ok}",
      to_number: "+447911123456",
      sender_id: "ACME",
      status: "queued",
      encoding: "GSM7",
    });
  });

  it("puts a submit with priority_flag 2 or 3 in the high class, others in normal", async () => {
    const flags = [0, 1, 2, 3];
    const ids = await Promise.all(
      flags.map((flag) => submitOk({ priority_flag: flag, short_message: gsm("p") })),
    );
    const classes = await Promise.all(ids.map(async (id) => (await h.message(id))!.priority));
    expect(classes).toEqual(["normal", "normal", "high", "high"]);
  });

  it.each([
    ["IA5 (1)", 1, Buffer.from("Cost $5 & more", "latin1"), "Cost $5 & more"],
    ["Latin-1 (3)", 3, Buffer.from("Café für Jürgen", "latin1"), "Café für Jürgen"],
    ["UCS-2 (8), Arabic", 8, encodeUcs2(arabic), arabic],
  ])("decodes data_coding %s", async (_name, dataCoding, bytes, text) => {
    const id = await submitOk({ data_coding: dataCoding, short_message: bytes });
    expect(await h.message(id)).toMatchObject({ body: text });
  });

  it("refuses a data_coding it cannot decode, and stores nothing", async () => {
    expect(await submitStatus({ data_coding: 0x04, short_message: Buffer.from([1, 2, 3]) })).toBe(
      CommandStatus.ESME_RSUBMITFAIL,
    );
  });

  it("refuses a number that replied STOP with ESME_RINVDSTADR, charging nothing, and accepts it after START", async () => {
    const optOut = await h.addCustomer({ credits: 100 });
    const optOutClient = await h.bind(optOut, { bindType: "transmitter" });
    const submit = async () =>
      (await optOutClient.submit({ ...base, data_coding: 0, short_message: gsm("x") } as never))
        .command_status;
    const keyword = (text: string) =>
      applyOptOutKeyword(h.pool, { accountId: optOut.accountId, from: to, to: "+14155550999", text });
    const balance = async () =>
      Number(
        (await h.pool.query("SELECT balance FROM accounts WHERE id = $1", [optOut.accountId])).rows[0]
          .balance,
      );
    expect(await keyword("STOP")).toMatchObject({ action: "added" });
    expect(await submit()).toBe(CommandStatus.ESME_RINVDSTADR);
    expect(await balance()).toBe(100);
    // Another customer's list is its own: the same number is accepted from it.
    expect(await submitStatus({ short_message: gsm("x") })).toBe(CommandStatus.ESME_ROK);
    expect(await keyword("START")).toMatchObject({ action: "removed" });
    expect(await submit()).toBe(CommandStatus.ESME_ROK);
    expect(await balance()).toBe(99);
  });

  it("refuses a destination outside the account's countries with ESME_RINVDSTADR", async () => {
    const uk = await h.addCustomer({ credits: 100 });
    await h.pool.query("UPDATE accounts SET allowed_countries = '{GB}' WHERE id = $1", [uk.accountId]);
    const ukClient = await h.bind(uk, { bindType: "transmitter" });
    const submit = (destination_addr: string) =>
      ukClient.submit({ ...base, destination_addr, data_coding: 0, short_message: gsm("x") } as never);
    expect((await submit("14155550100")).command_status).toBe(CommandStatus.ESME_RINVDSTADR);
    expect((await submit("447400123456")).command_status).toBe(CommandStatus.ESME_ROK);
  });

  it("answers each refusal of the acceptance path with its SMPP status (README table)", async () => {
    expect(await submitStatus({ source_addr: "NOTMINE", short_message: gsm("x") })).toBe(
      CommandStatus.ESME_RINVSRCADR,
    );
    expect(await submitStatus({ destination_addr: "12", short_message: gsm("x") })).toBe(
      CommandStatus.ESME_RINVDSTADR,
    );
    expect(await submitStatus({ short_message: Buffer.alloc(0) })).toBe(CommandStatus.ESME_RSUBMITFAIL);
    expect(await submitStatus({ message_payload: gsm("x".repeat(1600)) })).toBe(
      CommandStatus.ESME_RINVMSGLEN,
    );
    const poor = await h.addCustomer({ credits: 0 });
    const poorClient = await h.bind(poor, { bindType: "transmitter" });
    const response = await poorClient.submit({ ...base, data_coding: 0, short_message: gsm("x") });
    expect(response.command_status).toBe(CommandStatus.ESME_RSUBMITFAIL);
    const count = await h.pool.query("SELECT count(*)::int AS n FROM messages WHERE account_id = $1", [
      poor.accountId,
    ]);
    expect(count.rows[0].n).toBe(0);
  });

  it("accepts a long text in message_payload as one message", async () => {
    const id = await submitOk({ message_payload: encodeUcs2(longArabic), data_coding: 8 });
    expect(await h.message(id)).toMatchObject({ body: longArabic, segment_count: 2, encoding: "UCS2" });
  });
});

describe("customer-side concatenation: one message for the handset, one id per submit_sm", () => {
  const text = "A".repeat(150) + "B".repeat(150) + "C".repeat(10);

  it.each([
    [
      "UDH with an 8-bit reference",
      (seq: number, part: Buffer) => ({
        esm_class: EsmClass.UDHI,
        short_message: Buffer.concat([udh8(7, 3, seq), part]),
      }),
    ],
    [
      "UDH with a 16-bit reference",
      (seq: number, part: Buffer) => ({
        esm_class: EsmClass.UDHI,
        short_message: Buffer.concat([udh16(0x1234, 3, seq), part]),
      }),
    ],
    [
      "SAR TLVs",
      (seq: number, part: Buffer) => ({
        short_message: part,
        sar_msg_ref_num: 0x2345,
        sar_total_segments: 3,
        sar_segment_seqnum: seq,
      }),
    ],
  ])("reassembles parts sent as %s, even out of order", async (_name, partFields) => {
    const parts = [gsm(text.slice(0, 150)), gsm(text.slice(150, 300)), gsm(text.slice(300))];
    const ids = [
      await submitOk({ data_coding: 0, ...partFields(2, parts[1]!) }),
      await submitOk({ data_coding: 0, ...partFields(1, parts[0]!) }),
      await submitOk({ data_coding: 0, ...partFields(3, parts[2]!) }),
    ];
    expect(new Set(ids).size).toBe(3);
    const rows = await messagesOf(ids);
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((row) => row.id)).size).toBe(1);
    expect(rows[0]).toMatchObject({ body: text, source: "smpp", segment_count: 3 });
    // Every id given answers query_sm, and so does the reassembled message's own id.
    await h.pool.query("UPDATE messages SET status = 'delivered', delivered_at = now() WHERE id = $1", [
      rows[0]!.id,
    ]);
    for (const id of [...ids, rows[0]!.id as string])
      expect(await client.request("query_sm", { message_id: id, source_addr: "ACME" })).toMatchObject({
        command_status: 0,
        message_id: id,
        message_state: MessageState.DELIVERED,
      });
  });

  it("reassembles Arabic UCS-2 parts, with a character's bytes split across two parts", async () => {
    const bytes = encodeUcs2(longArabic);
    // An odd cut: the first part ends in the middle of a UCS-2 code unit.
    const cut = 133;
    const ids = [
      await submitOk({
        data_coding: 8,
        esm_class: EsmClass.UDHI,
        short_message: Buffer.concat([udh8(9, 2, 1), bytes.subarray(0, cut)]),
      }),
      await submitOk({
        data_coding: 8,
        esm_class: EsmClass.UDHI,
        short_message: Buffer.concat([udh8(9, 2, 2), bytes.subarray(cut)]),
      }),
    ];
    const rows = await messagesOf(ids);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ body: longArabic, encoding: "UCS2", segment_count: 2 });
  });

  it("keeps two messages apart that share a reference but not a destination", async () => {
    const first = await submitOk({
      esm_class: EsmClass.UDHI,
      short_message: Buffer.concat([udh8(50, 2, 1), gsm("one-")]),
    });
    const other = await submitOk({
      destination_addr: "447911123999",
      esm_class: EsmClass.UDHI,
      short_message: Buffer.concat([udh8(50, 2, 1), gsm("two-")]),
    });
    const second = await submitOk({
      esm_class: EsmClass.UDHI,
      short_message: Buffer.concat([udh8(50, 2, 2), gsm("a")]),
    });
    expect((await messagesOf([first, second])).map((row) => row.body)).toEqual(["one-a", "one-a"]);
    expect(await messagesOf([other])).toEqual([]);
  });

  it("refuses a UDH that runs past the message with ESME_RINVESMCLASS", async () => {
    expect(
      await submitStatus({ esm_class: EsmClass.UDHI, short_message: Buffer.from([0x09, 0x00, 0x03]) }),
    ).toBe(CommandStatus.ESME_RINVESMCLASS);
  });
});

describe("schedule_delivery_time", () => {
  it("schedules a message for an absolute or relative SMPP time, and refuses a past or malformed one", async () => {
    // Two days ahead, written as local time one hour ahead of UTC ("04+": four quarter hours).
    const at = new Date(Math.floor(Date.now() / 1000) * 1000 + 2 * 86_400_000);
    const local = new Date(at.getTime() + 3_600_000).toISOString().replace(/\D/g, "").slice(2, 14);
    const absolute = await submitOk({ short_message: gsm("later"), schedule_delivery_time: `${local}004+` });
    expect(await h.message(absolute)).toMatchObject({ status: "scheduled", scheduled_at: at });
    const relative = await submitOk({
      short_message: gsm("in a day"),
      schedule_delivery_time: "000001000000000R",
    });
    const row = await h.message(relative);
    expect(row).toMatchObject({ status: "scheduled" });
    expect(Math.abs((row!.scheduled_at as Date).getTime() - (Date.now() + 86_400_000))).toBeLessThan(60_000);
    // Past (2020) and beyond the 180 days docs/messages.md#scheduling allows (2099): the acceptance path's INVALID_SCHEDULE.
    expect(await submitStatus({ short_message: gsm("x"), schedule_delivery_time: "200101000000000+" })).toBe(
      CommandStatus.ESME_RINVSCHED,
    );
    expect(await submitStatus({ short_message: gsm("x"), schedule_delivery_time: "990101000000000+" })).toBe(
      CommandStatus.ESME_RINVSCHED,
    );
    expect(await submitStatus({ short_message: gsm("x"), schedule_delivery_time: "tomorrow" })).toBe(
      CommandStatus.ESME_RINVSCHED,
    );
  });
});

describe("query_sm", () => {
  it("answers from our records, and the same way for an unknown id and another account's", async () => {
    const id = await submitOk({ short_message: gsm("query me") });
    const response = await client.request("query_sm", { message_id: id, source_addr: "ACME" });
    expect(response).toMatchObject({
      command_status: 0,
      message_id: id,
      message_state: MessageState.ENROUTE,
    });
    await h.pool.query(
      "UPDATE messages SET status = 'delivered', delivered_at = '2030-01-02T03:04:05Z' WHERE id = $1",
      [id],
    );
    expect(await client.request("query_sm", { message_id: id, source_addr: "ACME" })).toMatchObject({
      command_status: 0,
      message_state: MessageState.DELIVERED,
      final_date: "300102030405000+",
    });
    const stranger = await h.bind(await h.addCustomer(), { bindType: "transmitter" });
    expect((await stranger.request("query_sm", { message_id: id, source_addr: "ACME" })).command_status).toBe(
      CommandStatus.ESME_RQUERYFAIL,
    );
    expect(
      (await client.request("query_sm", { message_id: "msg_unknown", source_addr: "ACME" })).command_status,
    ).toBe(CommandStatus.ESME_RQUERYFAIL);
  });
});

describe("throttling", () => {
  it("answers ESME_RTHROTTLED beyond the account's requests per second, and accepts again in the next second", async () => {
    const slow = await h.addCustomer({ rps: 5 });
    const slowClient = await h.bind(slow, { bindType: "transmitter" });
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () =>
        slowClient.submit({ ...base, data_coding: 0, short_message: gsm("hi") }),
      ),
    );
    const ok = statuses.filter((r) => r.command_status === 0).length;
    const throttled = statuses.filter((r) => r.command_status === CommandStatus.ESME_RTHROTTLED).length;
    // One-second windows: a burst can straddle two of them.
    expect(ok).toBeGreaterThanOrEqual(5);
    expect(ok).toBeLessThanOrEqual(10);
    expect(ok + throttled).toBe(20);
    const stored = await h.pool.query("SELECT count(*)::int AS n FROM messages WHERE account_id = $1", [
      slow.accountId,
    ]);
    expect(stored.rows[0].n).toBe(ok);
  });
});
