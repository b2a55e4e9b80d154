import { startTestGateway, type TestGateway } from "@sms/api-gateway/test/harness";
import { applyTransition } from "@sms/message-state";
import { encodeGsm7 } from "@sms/sms-encoding";
import { CommandStatus, type SmppClient } from "@sms/smpp";
import { toWebhookEvent, type OutboxRow } from "@sms/webhooks";
import { startHarness, type Harness, type TestCustomer } from "@sms/smpp-server/test/harness";

/**
 * A customer's submit_sm carries its client_ref in our TLV 0x1400
 * (docs/decisions.md#client-ref-tlv); over a real bind it must come back exactly in
 * GET /v1/sms/{id}, the list filter and every webhook payload, and a bad value is refused
 * with a clear status, nothing stored and nothing charged.
 */
let h: Harness;
let gw: TestGateway;
let customer: TestCustomer;
let apiKey: string;
let client: SmppClient;

beforeAll(async () => {
  h = await startHarness();
  gw = await startTestGateway({}, h.world);
  customer = await h.addCustomer({ credits: 100 });
  apiKey = await gw.addKey({ accountId: customer.accountId, key: "", keyId: "" });
  client = await h.bind(customer, { bindType: "transmitter" });
});
afterAll(async () => {
  await gw?.stop();
  await h?.close();
});

const base = {
  source_addr: "ACME",
  destination_addr: "447911123456",
  dest_addr_ton: 1,
  dest_addr_npi: 1,
  data_coding: 0,
  short_message: Buffer.from(encodeGsm7("Your order has shipped")),
};
const submit = (fields: Record<string, unknown>) => client.submit({ ...base, ...fields } as never);
const ascii = (value: string) => Buffer.from(value, "latin1");

async function webhookData(messageId: string) {
  const { rows } = await h.pool.query<OutboxRow>(
    `SELECT id, account_id, message_id, type, sequence, created_at, payload FROM events AS o WHERE message_id = $1 ORDER BY sequence`,
    [messageId],
  );
  return rows.map((row) => ({ event: row.type, ...toWebhookEvent(row).data }));
}

async function accountState() {
  const { rows } = await h.pool.query<{ messages: number; submits: number; balance: string }>(
    `SELECT (SELECT count(*)::int FROM messages WHERE account_id = $1) AS messages,
            (SELECT count(*)::int FROM smpp_submits WHERE account_id = $1) AS submits,
            (SELECT balance::text FROM accounts WHERE id = $1) AS balance`,
    [customer.accountId],
  );
  return rows[0];
}

describe("client_ref over SMPP (TLV 0x1400)", () => {
  it("is stored, echoed by GET and the list filter, and rides on every webhook", async () => {
    const response = await submit({ client_ref: ascii("order-4711") });
    expect(response.command_status).toBe(CommandStatus.ESME_ROK);
    const id = response.message_id!;

    const got = await gw.request("GET", `/v1/sms/${id}`, { key: apiKey });
    expect(got.status).toBe(200);
    expect(got.body.client_ref).toBe("order-4711");
    const list = await gw.request("GET", "/v1/sms?client_ref=order-4711", { key: apiKey });
    expect(list.body.data.map((m: { message_id: string }) => m.message_id)).toEqual([id]);

    await applyTransition(h.pool, { messageId: id, to: "sent", at: new Date() });
    await applyTransition(h.pool, { messageId: id, to: "delivered", at: new Date() });
    expect(await webhookData(id)).toEqual([
      expect.objectContaining({ event: "message.queued", client_ref: "order-4711" }),
      expect.objectContaining({ event: "message.sent", client_ref: "order-4711" }),
      expect.objectContaining({ event: "message.delivered", client_ref: "order-4711" }),
    ]);
  });

  it("takes 128 characters, and a C string's trailing NUL is not part of it", async () => {
    const longest = "R".repeat(127) + "~";
    const full = await submit({ client_ref: ascii(longest) });
    expect(full.command_status).toBe(CommandStatus.ESME_ROK);
    expect(await h.message(full.message_id!)).toMatchObject({ client_ref: longest });
    const cString = await submit({ client_ref: Buffer.concat([ascii("po 12 / line 3"), Buffer.from([0])]) });
    expect(cString.command_status).toBe(CommandStatus.ESME_ROK);
    const got = await gw.request("GET", `/v1/sms/${cString.message_id}`, { key: apiKey });
    expect(got.body.client_ref).toBe("po 12 / line 3");
  });

  it("is null without the TLV", async () => {
    const response = await submit({});
    const got = await gw.request("GET", `/v1/sms/${response.message_id}`, { key: apiKey });
    expect(got.body.client_ref).toBeNull();
    const [queued] = await webhookData(response.message_id!);
    expect(queued).toHaveProperty("client_ref", null);
  });

  it.each([
    ["over 128 characters", ascii("x".repeat(129)), CommandStatus.ESME_RINVPARLEN],
    ["empty", Buffer.alloc(0), CommandStatus.ESME_RINVPARLEN],
    ["only a NUL", Buffer.from([0]), CommandStatus.ESME_RINVPARLEN],
    ["Latin-1 é", ascii("ordér-1"), CommandStatus.ESME_RINVOPTPARAMVAL],
    ["UTF-8 é", Buffer.from("ordér-1", "utf8"), CommandStatus.ESME_RINVOPTPARAMVAL],
    ["a control character", ascii("order\n1"), CommandStatus.ESME_RINVOPTPARAMVAL],
    ["a NUL inside", Buffer.from([0x61, 0x00, 0x62]), CommandStatus.ESME_RINVOPTPARAMVAL],
  ])("refuses a client_ref %s, storing and charging nothing", async (_name, value, status) => {
    const before = await accountState();
    expect((await submit({ client_ref: value })).command_status).toBe(status);
    expect(await accountState()).toEqual(before);
  });

  it("on a message sent in parts: each part is checked, and the part that completes it gives the value", async () => {
    const part = (seq: number, clientRef: Buffer) =>
      submit({
        short_message: Buffer.from(encodeGsm7(`part ${seq} `.repeat(15))),
        sar_msg_ref_num: 0x4711,
        sar_total_segments: 2,
        sar_segment_seqnum: seq,
        client_ref: clientRef,
      });
    const before = await accountState();
    expect((await part(1, ascii("bad\u00ff"))).command_status).toBe(CommandStatus.ESME_RINVOPTPARAMVAL);
    expect(await accountState()).toEqual(before);
    const first = await part(1, ascii("multi-1"));
    const second = await part(2, ascii("multi-1"));
    expect([first.command_status, second.command_status]).toEqual([
      CommandStatus.ESME_ROK,
      CommandStatus.ESME_ROK,
    ]);
    const { rows } = await h.pool.query<{ client_ref: string }>(
      `SELECT DISTINCT m.client_ref FROM smpp_submits s JOIN messages m ON m.id = s.message_id
       WHERE s.id = ANY($1::text[])`,
      [[first.message_id, second.message_id]],
    );
    expect(rows).toEqual([{ client_ref: "multi-1" }]);
  });
});
