import {
  CommandStatus,
  parseReceipt,
  ResponseTimeoutError,
  type DeliverSm,
  type SubmitSmResp,
} from "@sms/smpp";
import { waitFor } from "@sms/testing";
import { Harness, segment } from "../test/harness";

const number = (suffix: string) => `+44770090${suffix}`;

describe("magic destination numbers", () => {
  const harness = new Harness();
  afterEach(() => harness.closeAll());

  async function setUp() {
    const simulator = await harness.simulator();
    const events: string[] = [];
    const receipts: DeliverSm[] = [];
    const client = await harness.client(simulator, {
      responseTimeoutMs: 300,
      onDeliverSm: (pdu) => {
        receipts.push(pdu);
        events.push(`receipt:${parseReceipt(pdu)?.messageId}`);
      },
    });
    const submit = async (suffix: string) => {
      const response = await client.submit(segment(number(suffix)));
      events.push(`resp:${response.message_id}`);
      return response;
    };
    const receiptsFor = (id: string | undefined) =>
      receipts.map((pdu) => parseReceipt(pdu)!).filter((r) => r.messageId === id);
    return { simulator, submit, receiptsFor, receipts, events };
  }

  it.each([
    ["0001", "undeliverable", "UNDELIV", 5],
    ["0002", "rejected", "REJECTD", 8],
    ["0003", "expired", "EXPIRED", 3],
  ])(
    "…%s is accepted and gets a receipt with state %s, in text and TLVs",
    async (suffix, state, stat, messageState) => {
      const { submit, receiptsFor } = await setUp();
      const response = await submit(suffix);
      expect(response.command_status).toBe(CommandStatus.ESME_ROK);
      const [receipt] = await waitFor(() =>
        receiptsFor(response.message_id).length ? receiptsFor(response.message_id) : undefined,
      );
      expect(receipt).toMatchObject({ state, stat, messageState, isFinal: true, dlvrd: "000" });
    },
  );

  it("…0004 is refused with ESME_RSUBMITFAIL and …0009 with ESME_RINVDSTADR", async () => {
    const { submit, simulator } = await setUp();
    expect((await submit("0004")).command_status).toBe(CommandStatus.ESME_RSUBMITFAIL);
    expect((await submit("0009")).command_status).toBe(CommandStatus.ESME_RINVDSTADR);
    expect(simulator.messages().map((m) => m.status)).toEqual(["refused", "refused"]);
    expect(simulator.stats().receipts.pending).toBe(0);
  });

  it("…0005 is throttled for the first tries, then delivered", async () => {
    const { submit, receiptsFor } = await setUp();
    const statuses: number[] = [];
    let last: SubmitSmResp | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      last = await submit("0005");
      statuses.push(last.command_status);
    }
    expect(statuses).toEqual([
      CommandStatus.ESME_RTHROTTLED,
      CommandStatus.ESME_RTHROTTLED,
      CommandStatus.ESME_ROK,
    ]);
    await waitFor(() => receiptsFor(last?.message_id)[0]?.state === "delivered", { what: "DELIVRD receipt" });
  });

  it("…0006 is accepted and never gets a receipt", async () => {
    const { submit, receiptsFor, simulator } = await setUp();
    const silent = await submit("0006");
    const normal = await submit("0123");
    await waitFor(() => receiptsFor(normal.message_id).length === 1, { what: "the ordinary receipt" });
    expect(simulator.stats().receipts.pending).toBe(0);
    expect(receiptsFor(silent.message_id)).toEqual([]);
    expect(simulator.findMessage(silent.message_id!)).toMatchObject({ status: "accepted", receiptsSent: 0 });
  });

  it("…0007 gets the same DELIVRD receipt twice", async () => {
    const { submit, receiptsFor } = await setUp();
    const response = await submit("0007");
    const receipts = await waitFor(() =>
      receiptsFor(response.message_id).length === 2 ? receiptsFor(response.message_id) : undefined,
    );
    expect(receipts.map((r) => r.state)).toEqual(["delivered", "delivered"]);
  });

  it("…0008 gets its receipt before the submit_sm_resp", async () => {
    const { submit, events } = await setUp();
    const response = await submit("0008");
    expect(events).toEqual([`receipt:${response.message_id}`, `resp:${response.message_id}`]);
  });

  it("…0010 is never answered", async () => {
    const { submit, simulator } = await setUp();
    await expect(submit("0010")).rejects.toBeInstanceOf(ResponseTimeoutError);
    expect(simulator.messages()).toEqual([
      expect.objectContaining({ status: "unanswered", messageId: undefined }),
    ]);
  });

  it("sends receipts whose text alone parses back to the same id and state", async () => {
    const { submit, receipts } = await setUp();
    const response = await submit("0003");
    const pdu = await waitFor(() => receipts[0]);
    const fromText = parseReceipt({ ...pdu, receipted_message_id: undefined, message_state: undefined });
    expect(fromText).toMatchObject({
      messageId: response.message_id,
      state: "expired",
      stat: "EXPIRED",
      err: "003",
      sub: "001",
      dlvrd: "000",
      text: "Hello",
    });
    expect(fromText?.submitDate).toMatch(/^\d{10}$/);
    expect(pdu).toMatchObject({
      esm_class: 0x04,
      receipted_message_id: response.message_id,
      message_state: 3,
    });
  });
});
