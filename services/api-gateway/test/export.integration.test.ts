import crypto from "node:crypto";
import { encodeUlid } from "@sms/ids";
import { expectError, startTestGateway, type TestAccount, type TestGateway } from "./harness";

/** RFC 4180 document → records (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (quoted && c === '"') quoted = false;
    else if (quoted) field += c;
    else if (c === '"') quoted = true;
    else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i++;
    } else field += c;
  }
  if (field !== "" || record.length > 0) throw new Error("the CSV does not end with CRLF");
  return records;
}

const iso = (date: Date | null) => (date ? date.toISOString() : "");

describe("GET /v1/sms/export (real HTTP, PostgreSQL, Redis)", () => {
  let gw: TestGateway;
  let alice: TestAccount;
  let bob: TestAccount;
  const since = new Date("2026-10-01T00:00:00.000Z");
  const until = new Date("2026-10-08T00:00:00.000Z");
  const rangeQuery = `since=${since.toISOString()}&until=${until.toISOString()}`;

  beforeAll(async () => {
    gw = await startTestGateway({ EXPORTS_PER_ACCOUNT: "1" });
    alice = await gw.createAccount({ credits: 10 });
    bob = await gw.createAccount({ credits: 10 });
  });
  afterAll(() => gw.stop());

  async function insert(
    accountId: string,
    id: string,
    createdAt: Date,
    fields: Record<string, unknown> = {},
  ) {
    await gw.db.pool.query(
      `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                             status, created_at, updated_at, client_ref, error_code, sent_at, failed_at, batch_id)
       VALUES ($1, $2, '+14155550100', 'ACME', $4, 'GSM7', $5, $5, $6::"MessageStatus", $3, $3, $7, $8, $9, $10, NULL)`,
      [
        id,
        accountId,
        createdAt,
        fields.body ?? "hello",
        fields.segments ?? 1,
        fields.status ?? "queued",
        fields.clientRef ?? null,
        fields.errorCode ?? null,
        fields.sentAt ?? null,
        fields.failedAt ?? null,
      ],
    );
  }

  it("answers exactly the account's rows of the range, since included and until not, as stored", async () => {
    // Ids as the platform makes them: their time is when the message was due, here its creation.
    const times = [
      new Date(since.getTime() - 1),
      since,
      new Date("2026-10-03T12:00:00.123Z"),
      new Date(until.getTime() - 1),
      until,
    ];
    const ids = times.map((time) => `msg_${encodeUlid(time.getTime(), crypto.randomBytes(10))}`);
    const id = (n: number) => ids[n - 1]!;
    await insert(alice.accountId, id(1), times[0]!);
    await insert(alice.accountId, id(2), since, { body: 'commas, "quotes"\nand a line', clientRef: "=1+2" });
    await insert(alice.accountId, id(3), times[2]!, {
      status: "failed",
      errorCode: "SMPP_ESME_RINVDSTADR",
      sentAt: new Date("2026-10-03T12:00:01Z"),
      failedAt: new Date("2026-10-03T12:00:05Z"),
      segments: 2,
    });
    await insert(alice.accountId, id(4), new Date(until.getTime() - 1), { body: "[OTP code withheld]" });
    await insert(alice.accountId, id(5), until);
    await insert(bob.accountId, `msg_${encodeUlid(since.getTime(), crypto.randomBytes(10))}`, since);

    const response = await fetch(`${gw.url}/v1/sms/export?${rangeQuery}`, {
      headers: { authorization: `Bearer ${alice.key}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe(
      'attachment; filename="messages_20261001T000000Z_20261008T000000Z.csv"',
    );
    const [header, ...records] = parseCsv(await response.text());
    expect(header).toEqual([
      "id",
      "created_at",
      "to",
      "sender_id",
      "status",
      "segments",
      "credits",
      "error_code",
      "client_ref",
      "batch_id",
      "sent_at",
      "delivered_at",
      "failed_at",
      "body",
    ]);
    const { rows } = await gw.db.pool.query(
      `SELECT * FROM messages WHERE account_id = $1 AND created_at >= $2 AND created_at < $3 ORDER BY created_at, id`,
      [alice.accountId, since, until],
    );
    expect(rows.map((r) => r.id)).toEqual([id(2), id(3), id(4)]);
    const inert = (text: string | null) => (text && /^[=+\-@\t\r]/.test(text) ? `'${text}` : (text ?? ""));
    expect(records).toEqual(
      rows.map((r) => [
        r.id,
        iso(r.created_at),
        r.to_number,
        r.sender_id,
        r.status,
        String(r.segment_count),
        String(r.credits_charged),
        r.error_code ?? "",
        inert(r.client_ref),
        r.batch_id ?? "",
        iso(r.sent_at),
        iso(r.delivered_at),
        iso(r.failed_at),
        inert(r.body),
      ]),
    );
    expect(records[0]![8]).toBe("'=1+2");
    expect(records[0]![13]).toBe('commas, "quotes"\nand a line');
  });

  it("refuses a missing, malformed, reversed or over-31-day range with 400", async () => {
    const get = (query: string) => gw.request("GET", `/v1/sms/export?${query}`, { key: alice.key });
    expectError(await get(`since=${since.toISOString()}`), 400, "VALIDATION_ERROR");
    expectError(await get(`since=yesterday&until=${until.toISOString()}`), 400, "VALIDATION_ERROR");
    expectError(
      await get(`since=${until.toISOString()}&until=${since.toISOString()}`),
      400,
      "VALIDATION_ERROR",
    );
    const long = await get("since=2026-10-01T00:00:00Z&until=2026-11-01T00:00:01Z");
    expectError(long, 400, "VALIDATION_ERROR");
    expect(long.body.error.message).toMatch(/31 days/);
    expect((await get("since=2026-10-01T00:00:00Z&until=2026-11-01T00:00:00Z")).status).toBe(200);
  });

  it("holds a client that stops reading (backpressure) and frees its slot when it hangs up", async () => {
    // Enough rows that the socket buffers fill long before the end: the export then waits.
    await gw.db.pool.query(
      `INSERT INTO messages (id, account_id, to_number, sender_id, body, encoding, segment_count, credits_charged,
                             status, created_at, updated_at)
       SELECT 'msg_bulkexport' || lpad(n::text, 16, '0'), $1, '+14155550100', 'ACME', repeat('x', 150), 'GSM7', 1, 1,
              'queued', '2026-09-01T00:00:00Z'::timestamptz + make_interval(secs => n), now()
       FROM generate_series(1, 60000) AS n`,
      [alice.accountId],
    );
    const query = "since=2026-09-01T00:00:00Z&until=2026-09-02T00:00:00Z";
    const abort = new AbortController();
    const stalled = await fetch(`${gw.url}/v1/sms/export?${query}`, {
      headers: { authorization: `Bearer ${alice.key}` },
      signal: abort.signal,
    });
    expect(stalled.status).toBe(200);
    // Not read: the first export is still running, so a second one of the account waits its turn.
    const second = await gw.request("GET", `/v1/sms/export?${query}`, { key: alice.key });
    expectError(second, 429, "RATE_LIMITED");
    expect(second.headers.get("retry-after")).toBe("5");
    // Another account is not held up by it.
    expect((await gw.request("GET", `/v1/sms/export?${rangeQuery}`, { key: bob.key })).status).toBe(200);
    abort.abort();
    const deadline = Date.now() + 10_000;
    for (;;) {
      const again = await fetch(`${gw.url}/v1/sms/export?${rangeQuery}`, {
        headers: { authorization: `Bearer ${alice.key}` },
      });
      const text = await again.text();
      if (again.status === 200) {
        expect(parseCsv(text)).toHaveLength(4);
        break;
      }
      if (Date.now() > deadline) throw new Error("the hung-up export never freed its slot");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
});
