import { sweepUnmatched } from "@sms/carrier-receipts";
import { formatReceiptText } from "@sms/smpp";
import { readMessage, readReceipts } from "@sms/carrier-receipts/test/fixtures";
import { RECEIPT_TOKEN, startHarness, type Harness } from "./harness";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

function post(
  body: unknown,
  options: { token?: string | null; carrierId?: string; contentType?: string } = {},
) {
  const token = options.token === undefined ? RECEIPT_TOKEN : options.token;
  return fetch(`${h.baseUrl}/v1/carriers/${options.carrierId ?? h.carrier.id}/receipts`, {
    method: "POST",
    headers: {
      "content-type": options.contentType ?? "application/json",
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

// …0006: the simulator accepts the message and never sends a receipt itself, so only ours counts.
const SILENT_NUMBER = "+447700900006";

describe("POST /v1/carriers/{carrierId}/receipts", () => {
  it("applies a JSON receipt and answers 202", async () => {
    const { messageId, carrierMessageId } = await h.send(SILENT_NUMBER);
    const response = await post({
      message_id: carrierMessageId,
      stat: "DELIVRD",
      err: "000",
      done_date: "2611212310",
    });
    expect(response.status).toBe(202);
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    // Applied at once, it is its segment's columns and no row (docs/decisions.md#applied-receipts).
    expect(await response.json()).toEqual({
      receipt_id: null,
      outcome: "applied",
      request_id: expect.stringMatching(/^req_/),
    });
    expect(await readMessage(h.pool, messageId)).toMatchObject({
      status: "delivered",
      outbox: ["message.delivered"],
    });
    const segment = await h.pool.query(
      "SELECT status, carrier_done_at FROM message_segments WHERE message_id = $1",
      [messageId],
    );
    expect(segment.rows).toEqual([
      { status: "delivered", carrier_done_at: new Date("2026-11-21T23:10:00Z") },
    ]);
    // Posted again, it changes nothing (a duplicate reads unmatched until the sweep calls it
    // ignored): that one is a row, with what was received, for support.
    const again = await post({
      message_id: carrierMessageId,
      stat: "DELIVRD",
      err: "000",
      done_date: "2611212310",
    });
    expect(await again.json()).toMatchObject({ outcome: "unmatched" });
    const { rows } = await h.pool.query(
      "SELECT outcome, raw FROM carrier_receipts WHERE carrier_message_id = $1 ORDER BY id",
      [carrierMessageId],
    );
    expect(rows).toEqual([
      {
        outcome: "unmatched",
        raw: {
          source: "http",
          message_id: carrierMessageId,
          stat: "DELIVRD",
          err: "000",
          done_date: "2611212310",
        },
      },
    ]);
  });

  it("applies a receipt posted as the SMPP receipt text", async () => {
    const { messageId, carrierMessageId } = await h.send(SILENT_NUMBER);
    const text = formatReceiptText({
      id: carrierMessageId,
      submitDate: new Date(),
      doneDate: new Date(),
      stat: "UNDELIV",
      err: 1,
    });
    const response = await post({ text });
    expect(response.status).toBe(202);
    expect(await readMessage(h.pool, messageId)).toMatchObject({
      status: "failed",
      errorCode: "UNDELIVERABLE",
    });
  });

  it("keeps a receipt for an id no segment has yet (202, unmatched), and a duplicate unmatched until the sweep records it ignored", async () => {
    const unknown = await post({ message_id: "not-yet-recorded", stat: "DELIVRD" });
    expect(await unknown.json()).toMatchObject({ outcome: "unmatched" });
    const { carrierMessageId } = await h.send(SILENT_NUMBER);
    await post({ message_id: carrierMessageId, stat: "DELIVRD" });
    const duplicate = await post({ message_id: carrierMessageId, stat: "DELIVRD", err: 0 });
    expect(duplicate.status).toBe(202);
    // Its segment is final: the carrier may have reused the id for a submit not recorded yet.
    expect(await duplicate.json()).toMatchObject({ outcome: "unmatched" });
    await sweepUnmatched(h.pool, { olderThanMs: 0 });
    const outcomes = (await readReceipts(h.pool, h.carrier.id))
      .filter((r) => r.carrierMessageId === carrierMessageId)
      .map((r) => r.outcome);
    expect(outcomes).toEqual(["ignored"]);
  });

  it.each([
    ["a wrong token", "wrong-token-0123456789"],
    ["no token", null],
  ])("answers 401 UNAUTHORIZED to %s", async (_name, token) => {
    const response = await post({ message_id: "x", stat: "DELIVRD" }, { token });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await response.json()).toEqual({
      error: {
        code: "UNAUTHORIZED",
        message: expect.any(String),
        request_id: expect.stringMatching(/^req_/),
      },
    });
  });

  it.each([
    ["no message_id", { stat: "DELIVRD" }, "message_id"],
    ["an empty stat", { message_id: "abc", stat: "" }, "stat"],
    [
      "a done_date that is no date",
      { message_id: "abc", stat: "DELIVRD", done_date: "yesterday" },
      "done_date",
    ],
    ["a text without stat:", { text: "id:abc err:000" }, "text"],
  ])("answers 400 VALIDATION_ERROR to a body with %s", async (_name, body, field) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: expect.objectContaining({
        code: "VALIDATION_ERROR",
        field,
        message: expect.stringContaining(field),
        request_id: expect.any(String),
      }),
    });
  });

  it("answers 400 INVALID_JSON, 415 and 404 with the documented error shape", async () => {
    const invalid = await post("{not json");
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as any).error.code).toBe("INVALID_JSON");
    const notArray = await post([1, 2]);
    expect(notArray.status).toBe(400);
    const form = await post("message_id=x", { contentType: "application/x-www-form-urlencoded" });
    expect(form.status).toBe(415);
    expect(((await form.json()) as any).error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const unknown = await post({ message_id: "x", stat: "DELIVRD" }, { carrierId: "car_nobody" });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe("NOT_FOUND");
  });
});
