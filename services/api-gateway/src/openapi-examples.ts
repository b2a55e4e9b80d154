/** Examples for every request and response of the OpenAPI document, checked against their schemas by the linter. */

const MSG = "msg_01JD6Z8Q4G2M0F3T6S8V9W0X1Y";
const BAT = "bat_01JD6Z8Q4G2M0F3T6S8V9W0X1Z";
const OTP = "otp_01JD6Z8Q4G2M0F3T6S8V9W0X20";
const AT = "2030-01-31T09:30:00.000Z";

export const examples = {
  sendSmsRequest: {
    to: "+14155550100",
    message: "Your order has shipped",
    sender_id: "ACME",
    client_ref: "order-4711",
    validity_period: 3600,
  },
  sendSmsResponse: {
    message_id: MSG,
    status: "queued",
    to: "+14155550100",
    sender_id: "ACME",
    segments: 1,
    encoding: "GSM-7",
    scheduled_at: null,
    created_at: AT,
    priority: "normal",
    client_ref: "order-4711",
    expires_at: "2030-01-31T10:30:00.000Z",
  },
  bulkRequest: {
    sender_id: "ACME",
    validity_period: 86400,
    messages: [
      { to: "+14155550100", message: "Sale starts today", client_ref: "promo-7-alice" },
      { to: "12", message: "Sale starts today" },
    ],
  },
  bulkResponse: {
    batch_id: BAT,
    accepted: 1,
    rejected: 1,
    messages: [
      {
        index: 0,
        message_id: MSG,
        to: "+14155550100",
        status: "queued",
        segments: 1,
        client_ref: "promo-7-alice",
      },
    ],
    errors: [
      {
        index: 1,
        to: "12",
        error: { code: "INVALID_PHONE", message: "to must be an E.164 number with a leading +", field: "to" },
      },
    ],
  },
  get message() {
    return {
      message_id: MSG,
      status: "delivered",
      to: "+14155550100",
      sender_id: "ACME",
      message: "Your order has shipped",
      segments: 1,
      encoding: "GSM-7",
      credits: 1,
      source: "api",
      priority: "normal",
      batch_id: null,
      client_ref: "order-4711",
      scheduled_at: null,
      expires_at: "2030-01-31T10:30:00.000Z",
      created_at: AT,
      updated_at: "2030-01-31T09:30:02.000Z",
      sent_at: "2030-01-31T09:30:01.000Z",
      delivered_at: "2030-01-31T09:30:02.000Z",
      failed_at: null,
      canceled_at: null,
      error_code: null,
      error_message: null,
      otp: null,
    };
  },
  get messageWithHistory() {
    return {
      ...this.message,
      history: [
        { status: "queued", previous_status: null, sequence: 1, at: AT, error_code: null },
        {
          status: "sent",
          previous_status: "queued",
          sequence: 2,
          at: "2030-01-31T09:30:01.000Z",
          error_code: null,
        },
        {
          status: "delivered",
          previous_status: "sent",
          sequence: 3,
          at: "2030-01-31T09:30:02.000Z",
          error_code: null,
        },
      ],
    };
  },
  get messageList() {
    return { data: [this.message], next_cursor: "eyJ0IjoiMjAzMC0wMS0zMVQwOTozMDowMC4wMDBaIn0" };
  },
  get canceled() {
    return {
      ...this.message,
      status: "canceled",
      scheduled_at: "2030-02-01T08:00:00.000Z",
      expires_at: "2030-02-03T08:00:00.000Z",
      sent_at: null,
      delivered_at: null,
      canceled_at: AT,
      updated_at: AT,
    };
  },
  batch: {
    batch_id: BAT,
    sender_id: "ACME",
    total: 2,
    accepted: 1,
    rejected: 1,
    created_at: AT,
    counts: { scheduled: 0, queued: 0, sent: 0, delivered: 1, failed: 0, canceled: 0 },
  },
  sendOtpRequest: { phone: "+14155550100", length: 6, expiry: 300 },
  sendOtpResponse: {
    otp_id: OTP,
    status: "pending",
    phone: "+14155550100",
    length: 6,
    expires_at: "2030-01-31T09:35:00.000Z",
    message_id: MSG,
  },
  verifyOtpRequest: { otp_id: OTP, code: "123456" },
  verifyOtpResponse: { otp_id: OTP, verified: true, status: "verified", attempts_remaining: 4 },
  otp: {
    otp_id: OTP,
    status: "verified",
    phone: "+14155550100",
    length: 6,
    attempts_remaining: 4,
    expires_at: "2030-01-31T09:35:00.000Z",
    verified_at: "2030-01-31T09:31:00.000Z",
    created_at: AT,
    message_id: MSG,
  },
  account: {
    account_id: "acc_01JD6Z8Q4G2M0F3T6S8V9W0X21",
    name: "Acme",
    status: "active",
    balance: 9870,
    limits: {
      requests_per_second: 100,
      messages_per_second: 50,
      daily_quota: 100000,
      daily_quota_used: 1250,
      max_batch_size: 10000,
      max_segments: 10,
    },
    sender_ids: ["ACME"],
    inbound_numbers: ["+14155550123", "46645"],
    allowed_countries: ["GB", "IE", "US"],
    webhook: {
      url: "https://hooks.acme.example/sms",
      enabled: true,
      event_types: ["message.delivered", "message.failed"],
      all_events: false,
    },
    auto_replies: {
      stop: "Acme: you are unsubscribed and will get no more messages. Reply START to resubscribe.",
      start: null,
      help: "Acme: reply STOP to unsubscribe. Help: acme.example/sms",
    },
  },
  statusEvent: {
    event: "message.delivered",
    message_id: MSG,
    timestamp: "2030-01-31T09:30:02.000Z",
    data: {
      to: "+14155550100",
      status: "delivered",
      sender_id: "ACME",
      segments: 1,
      error_code: null,
      error_message: null,
      delivered_at: "2030-01-31T09:30:02.000Z",
      sent_at: "2030-01-31T09:30:01.000Z",
      sequence: 3,
      previous_status: "sent",
      batch_id: null,
      otp_id: null,
      smpp_part_ids: null,
      client_ref: "order-4711",
    },
  },
  inbound: {
    id: "in_01JD6Z8Q4G2M0F3T6S8V9W0X22",
    from: "+14155550100",
    to: "+14155550199",
    text: "Yes, 3pm works",
    encoding: "GSM-7",
    segments: 1,
    flags: [],
    received_at: AT,
  },
  inboundList: {
    data: [
      {
        id: "in_01JD6Z8Q4G2M0F3T6S8V9W0X22",
        from: "+14155550100",
        to: "+14155550199",
        text: "Yes, 3pm works",
        encoding: "GSM-7",
        segments: 1,
        flags: [],
        received_at: AT,
      },
    ],
    next_cursor: "aW5fMDFKRDZaOFE0RzJNMEYzVDZTOFY5VzBYMjI",
  },
  receivedEvent: {
    event: "message.received",
    message_id: "in_01JD6Z8Q4G2M0F3T6S8V9W0X22",
    timestamp: AT,
    data: {
      from: "+14155550100",
      to: "+14155550199",
      text: "STOP",
      encoding: "GSM-7",
      segments: 1,
      received_at: AT,
    },
  },
  suppression: {
    number: "+14155550100",
    source: "keyword",
    reply_number: "+14155550999",
    created_at: AT,
  },
  suppressionList: {
    data: [{ number: "+14155550100", source: "keyword", reply_number: "+14155550999", created_at: AT }],
    next_cursor: null,
  },
  testEvent: {
    event: "webhook.test",
    message_id: null,
    timestamp: AT,
    data: {
      account_id: "acc_01JD6Z8Q4G2M0F3T6S8V9W0X21",
      note: "A test event sent when the endpoint was set or on request.",
    },
  },
};

/** A sentence per error code for the error examples. */
export const ERROR_EXAMPLE_MESSAGES: Record<string, { message: string; field?: string }> = {
  VALIDATION_ERROR: { message: "message is required", field: "message" },
  UNAUTHORIZED: { message: "Missing or invalid API key. Send Authorization: Bearer <key>." },
  INSUFFICIENT_CREDITS: { message: "The balance is below the 2 credits this message needs." },
  FORBIDDEN: { message: "This API key lacks the sms:send permission." },
  NOT_FOUND: { message: "No message with this id exists for this account." },
  RECIPIENT_OPTED_OUT: {
    message:
      "to opted out of messages from this account (it replied STOP or was added to GET /v1/suppressions).",
    field: "to",
  },
  IDEMPOTENCY_CONFLICT: { message: "This Idempotency-Key was used with another body." },
  OTP_EXPIRED: { message: "This OTP has expired; send a new one." },
  PAYLOAD_TOO_LARGE: { message: "The body is larger than 1 MiB." },
  UNSUPPORTED_MEDIA_TYPE: { message: "Send the body as application/json." },
  RATE_LIMITED: { message: "Too many requests; retry after the Retry-After seconds." },
  INTERNAL: { message: "Something went wrong on our side; quote the request id." },
  SERVICE_UNAVAILABLE: { message: "The service is briefly unavailable; nothing was accepted. Retry." },
};
