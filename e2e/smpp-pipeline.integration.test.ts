import { createCarrierSimulator, type CarrierSimulator } from "@sms/carrier-simulator";
import { loadDispatcherConfig } from "@sms/dispatcher";
import { startDispatcher, type RunningDispatcher } from "@sms/dispatcher";
import { loadDlrIngestConfig } from "@sms/dlr-ingest";
import { startDlrIngest, type RunningDlrIngest } from "@sms/dlr-ingest";
import { createLogger } from "@sms/logger";
import { startOutboxRelay } from "@sms/outbox-relay";
import { createSmppReceiptProducer, createWebhookDeliverProducer } from "@sms/queues";
import { encodeGsm7 } from "@sms/sms-encoding";
import { EsmClass, MessageState, type DeliverSm, type SmppClient } from "@sms/smpp";
import { waitFor } from "@sms/testing";
import { startHarness, type Harness } from "@sms/smpp-server/test/harness";

/**
 * The whole way: customer submit_sm → acceptance → dispatcher → carrier simulator →
 * receipt → dlr-ingest → outbox_events → the outbox relay → smpp.dlr-out → deliver_sm.
 */
let h: Harness;
let simulator: CarrierSimulator;
let dispatcher: RunningDispatcher;
let dlrIngest: RunningDlrIngest;
let relay: { stop(): Promise<void> };
let producers: { close(): Promise<void> }[];
let customer: SmppClient;
const received: DeliverSm[] = [];
const logger = createLogger("pipeline-test", process.env.TEST_LOG_LEVEL ?? "error");

beforeAll(async () => {
  h = await startHarness();
  simulator = await createCarrierSimulator({ settings: { receiptDelayMs: 20 }, logger });
  await h.pool.query(
    `INSERT INTO carriers (id, name, host, port, system_id, password, window_size, submits_per_second, updated_at)
     VALUES ('sim', 'simulator', '127.0.0.1', $1, 'platform', 'secret', 20, 10000, now())`,
    [simulator.smppPort],
  );
  await h.pool.query("INSERT INTO routes (id, prefix, carrier_id) VALUES ('rte_1', '+', 'sim')");
  const env = { ...h.world.env, PORT: "0", HOST: "127.0.0.1", CARRIER_REFRESH_MS: "200" };
  dispatcher = await startDispatcher(loadDispatcherConfig({ ...env, SUBMIT_TIMEOUT_MS: "2000" }), logger);
  dlrIngest = await startDlrIngest(loadDlrIngestConfig(env), logger);
  const context = { connection: h.redis, prefix: h.world.redisPrefix };
  const smppReceipts = createSmppReceiptProducer(context);
  const webhooks = createWebhookDeliverProducer(context);
  producers = [smppReceipts, webhooks];
  relay = startOutboxRelay({
    pool: h.pool,
    producers: { smppReceipts, webhooks },
    logger,
    batchSize: 500,
    idleMs: 50,
  });
  await waitFor(() => (dispatcher.carriers.status().sim?.bound ?? 0) > 0, {
    what: "the dispatcher's carrier bind",
  });
  await waitFor(() => simulator.stats().binds.filter((b) => b.state.startsWith("bound")).length >= 2, {
    what: "dlr-ingest's receiver bind",
  });
  customer = await h.bind(await h.addCustomer(), {
    bindType: "transceiver",
    onDeliverSm: (pdu) => void received.push(pdu),
  });
});

afterAll(async () => {
  await relay?.stop();
  await Promise.all((producers ?? []).map((p) => p.close()));
  await dispatcher?.stop();
  await dlrIngest?.stop();
  await simulator?.close();
  await h?.close();
});

const gsm = (text: string) => Buffer.from(encodeGsm7(text));
async function submit(destination: string, fields: Record<string, unknown> = {}): Promise<string> {
  const response = await customer.submit({
    source_addr: "ACME",
    destination_addr: destination,
    dest_addr_ton: 1,
    registered_delivery: 1,
    data_coding: 0,
    short_message: gsm("pipeline"),
    ...fields,
  } as never);
  expect(response.command_status).toBe(0);
  return response.message_id!;
}
const receiptFor = (id: string) =>
  waitFor(() => received.find((pdu) => pdu.receipted_message_id === id), {
    what: `receipt for ${id}`,
    timeoutMs: 20000,
  });

describe("receipts through the carrier simulator and the outbox relay", () => {
  it.each([
    ["14155551234", "DELIVRD", "000", MessageState.DELIVERED],
    ["14155550001", "UNDELIV", "001", MessageState.UNDELIVERABLE],
    ["14155550002", "REJECTD", "002", MessageState.REJECTED],
    ["14155550003", "EXPIRED", "003", MessageState.EXPIRED],
    // …0004: the carrier refuses the submit for good (ESME_RSUBMITFAIL): failed without a carrier receipt.
    ["14155550004", "UNDELIV", "099", MessageState.UNDELIVERABLE],
  ])("a submit to %s comes back as stat:%s err:%s", async (destination, stat, err, state) => {
    const id = await submit(destination);
    const receipt = await receiptFor(id);
    expect(receipt).toMatchObject({ esm_class: EsmClass.DELIVERY_RECEIPT, message_state: state });
    expect(receipt.short_message.toString()).toMatch(
      new RegExp(`^id:${id} .* stat:${stat} err:${err} text:pipeline$`),
    );
  });

  it("sends the handset one message for a concatenated submit, and the customer a receipt per part", async () => {
    const udh = (seq: number) => Buffer.from([0x05, 0x00, 0x03, 0x21, 2, seq]);
    const text = "x".repeat(160) + "tail";
    const ids = [
      await submit("14155551299", {
        esm_class: EsmClass.UDHI,
        short_message: Buffer.concat([udh(1), gsm(text.slice(0, 153))]),
      }),
      await submit("14155551299", {
        esm_class: EsmClass.UDHI,
        short_message: Buffer.concat([udh(2), gsm(text.slice(153))]),
      }),
    ];
    for (const id of ids) expect((await receiptFor(id)).short_message.toString()).toMatch(/stat:DELIVRD/);
    const messageId = (await h.pool.query("SELECT message_id FROM smpp_submits WHERE id = $1", [ids[0]]))
      .rows[0].message_id;
    expect(await h.message(messageId)).toMatchObject({ body: text, status: "delivered", segment_count: 2 });
    // The carrier got the message once, as our own two segments.
    expect(simulator.messages().filter((m) => m.to.endsWith("14155551299"))).toHaveLength(2);
  });
});
