import { startTestGateway, type TestAccount, type TestGateway } from "./harness";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.stop();
});

let seq = 0;
/** An inbound row as dlr-ingest stores it, received `minutesAgo` ago; ids follow the order of calls. */
async function inbound(
  account: TestAccount | null,
  fields: { from?: string; to?: string; minutesAgo?: number } = {},
) {
  const id = `in_01JD6Z8Q4G2M0F3T6S8V9W${String(++seq).padStart(4, "0")}`;
  await gw.db.pool.query(
    `INSERT INTO inbound_messages (id, account_id, carrier_id, from_addr, to_addr, text, encoding, data_coding, segments, flags, received_at)
     VALUES ($1, $2, 'car_x', $3, $4, $5, 'GSM-7', 0, 1, '{}', now() - make_interval(mins => $6))`,
    [
      id,
      account?.accountId ?? null,
      fields.from ?? "+447700900123",
      fields.to ?? "+14155550199",
      `text ${seq}`,
      fields.minutesAgo ?? 0,
    ],
  );
  return id;
}

describe("GET /v1/inbound", () => {
  it("lists the account's inbound messages newest first with filters and a cursor", async () => {
    const ann = await gw.createAccount();
    const older = await inbound(ann, { minutesAgo: 120 });
    const fromBob = await inbound(ann, { from: "+447700900999" });
    const toShort = await inbound(ann, { to: "46645" });
    const alpha = await inbound(ann, { from: "ACME" });
    const get = async (query: string) =>
      (await gw.request("GET", `/v1/inbound${query}`, { key: ann.key })).body;

    expect((await get("")).data.map((m: { id: string }) => m.id)).toEqual([alpha, toShort, fromBob, older]);
    // "+" unescaped in a query string arrives as a space: still the number.
    expect((await get("?from=+447700900999")).data.map((m: { id: string }) => m.id)).toEqual([fromBob]);
    expect((await get("?from=ACME")).data.map((m: { id: string }) => m.id)).toEqual([alpha]);
    expect((await get("?to=46645")).data.map((m: { id: string }) => m.id)).toEqual([toShort]);
    const hourAgo = new Date(Date.now() - 3600_000).toISOString();
    expect((await get(`?until=${hourAgo}`)).data.map((m: { id: string }) => m.id)).toEqual([older]);
    expect((await get(`?since=${hourAgo}`)).data).toHaveLength(3);

    const first = await get("?limit=3");
    expect(first.data).toHaveLength(3);
    const second = await get(`?limit=3&cursor=${first.next_cursor}`);
    expect(second).toEqual({ data: [expect.objectContaining({ id: older })], next_cursor: null });
    expect(first.data[0]).toEqual({
      id: alpha,
      from: "ACME",
      to: "+14155550199",
      text: expect.stringMatching(/^text /),
      encoding: "GSM-7",
      segments: 1,
      flags: [],
      received_at: expect.any(String),
    });
  });

  it("never shows another account's or an unassigned message (404 by id)", async () => {
    const ann = await gw.createAccount();
    const ben = await gw.createAccount();
    const annsId = await inbound(ann);
    const nobodys = await inbound(null);
    expect((await gw.request("GET", `/v1/inbound/${annsId}`, { key: ann.key })).status).toBe(200);
    for (const id of [annsId, nobodys]) {
      const answer = await gw.request("GET", `/v1/inbound/${id}`, { key: ben.key });
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe("NOT_FOUND");
    }
    expect((await gw.request("GET", "/v1/inbound", { key: ben.key })).body.data).toEqual([]);
  });

  it("refuses a bad cursor, a bad date and an unknown filter with the error shape", async () => {
    const ann = await gw.createAccount();
    for (const [query, field] of [
      ["?cursor=bm9wZQ", "cursor"],
      ["?since=yesterday", "since"],
      ["?status=sent", "status"],
    ]) {
      const answer = await gw.request("GET", `/v1/inbound${query}`, { key: ann.key });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: "VALIDATION_ERROR" });
      expect(JSON.stringify(answer.body.error)).toContain(field);
    }
  });
});
