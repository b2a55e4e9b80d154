import { renderWebhookBody, toWebhookEvent, type OutboxRow } from "./index";

const row: OutboxRow = {
  id: "evt_1",
  account_id: "acc_1",
  message_id: "msg_1",
  type: "message.failed",
  sequence: 3,
  payload: {
    status: "failed",
    to: "+447700900123",
    previous_status: "sent",
    error_code: "UNDELIVERABLE",
    message: "the text must never go out",
    body: "nor this",
    segments: 2,
  },
  created_at: new Date("2026-11-22T10:00:00.123Z"),
};

describe("webhook event", () => {
  it("has exactly the documented keys (docs/webhooks.md#payload), nulls for what is unknown, and no text", () => {
    const event = toWebhookEvent(row);
    expect(event).toEqual({
      event: "message.failed",
      message_id: "msg_1",
      timestamp: "2026-11-22T10:00:00.123Z",
      data: {
        to: "+447700900123",
        status: "failed",
        sender_id: null,
        segments: 2,
        error_code: "UNDELIVERABLE",
        error_message: null,
        delivered_at: null,
        sent_at: null,
        sequence: 3,
        previous_status: "sent",
        batch_id: null,
        otp_id: null,
        smpp_part_ids: null,
        client_ref: null,
      },
    });
    expect(renderWebhookBody(event)).not.toMatch(/text must never|nor this/);
  });

  it("renders the same bytes whatever order the stored keys come back in", () => {
    const event = toWebhookEvent(row);
    const shuffled = JSON.parse(
      JSON.stringify({
        data: event.data,
        timestamp: event.timestamp,
        message_id: event.message_id,
        event: event.event,
      }),
    );
    const reordered = { ...shuffled, data: Object.fromEntries(Object.entries(shuffled.data).reverse()) };
    expect(renderWebhookBody(reordered)).toBe(renderWebhookBody(event));
    expect(Object.keys(JSON.parse(renderWebhookBody(reordered)))).toEqual([
      "event",
      "message_id",
      "timestamp",
      "data",
    ]);
  });
});

describe("message.received event", () => {
  it("carries the inbound message: from, to, text, encoding, segments, received_at, in that order", () => {
    const received: OutboxRow = {
      id: "evt_2",
      account_id: "acc_1",
      message_id: "in_01ARZ3NDEKTSV4RRFFQ69G5FAV",
      type: "message.received",
      sequence: 1,
      payload: {
        received_at: "2026-11-24T10:00:00.000Z",
        text: "مرحبا",
        to: "+14155550123",
        from: "+447700900123",
        segments: 1,
        encoding: "UCS-2",
        status: "not sent",
      },
      created_at: new Date("2026-11-24T10:00:00.010Z"),
    };
    const body = JSON.parse(renderWebhookBody(toWebhookEvent(received)));
    expect(body).toEqual({
      event: "message.received",
      message_id: "in_01ARZ3NDEKTSV4RRFFQ69G5FAV",
      timestamp: "2026-11-24T10:00:00.010Z",
      data: {
        from: "+447700900123",
        to: "+14155550123",
        text: "مرحبا",
        encoding: "UCS-2",
        segments: 1,
        received_at: "2026-11-24T10:00:00.000Z",
      },
    });
    expect(Object.keys(body.data)).toEqual(["from", "to", "text", "encoding", "segments", "received_at"]);
  });
});
