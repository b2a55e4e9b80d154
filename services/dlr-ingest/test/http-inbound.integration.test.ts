import crypto from "node:crypto";
import { generateSecretToken, hashSecretToken } from "@sms/auth";
import { insertCarrier } from "@sms/carrier-receipts/test/fixtures";
import { startHarness, type Harness } from "./harness";

let h: Harness;
let token: string;
const NUMBER = "+14155557100";

beforeAll(async () => {
  h = await startHarness();
  token = generateSecretToken();
  await h.pool.query("UPDATE carriers SET inbound_token_hash = $2 WHERE id = $1", [
    h.carrier.id,
    hashSecretToken(token),
  ]);
  await h.pool.query("INSERT INTO inbound_numbers (number, account_id) VALUES ($1, $2)", [
    NUMBER,
    h.accountId,
  ]);
});

afterAll(async () => {
  await h?.close();
});

function post(
  body: unknown,
  options: { token?: string | null; carrierId?: string; contentType?: string } = {},
) {
  const bearer = options.token === undefined ? token : options.token;
  return fetch(`${h.baseUrl}/v1/carriers/${options.carrierId ?? h.carrier.id}/inbound`, {
    method: "POST",
    headers: {
      "content-type": options.contentType ?? "application/json",
      ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

const messageId = () => `mo-${crypto.randomBytes(6).toString("hex")}`;

async function errorOf(response: Response) {
  const body = (await response.json()) as {
    error: { code: string; message: string; field?: string; request_id: string };
  };
  expect(body.error.request_id).toMatch(/^req_/);
  return body.error;
}

describe("POST /v1/carriers/{carrierId}/inbound", () => {
  it("stores a posted message for the account owning the number, with its webhook event; the same message_id again is stored once", async () => {
    const body = { message_id: messageId(), from: "447700900123", to: NUMBER, text: "Yes, 3pm works {ok}" };
    const response = await post(body);
    expect(response.status).toBe(202);
    const answer = (await response.json()) as { inbound_id: string; outcome: string };
    expect(answer).toEqual({
      inbound_id: expect.stringMatching(/^in_/),
      outcome: "assigned",
      request_id: expect.stringMatching(/^req_/),
    });
    const { rows } = await h.pool.query(
      "SELECT account_id, from_addr, text, encoding, carrier_id, carrier_message_id FROM inbound_messages WHERE id = $1",
      [answer.inbound_id],
    );
    expect(rows).toEqual([
      {
        account_id: h.accountId,
        from_addr: "+447700900123",
        text: "Yes, 3pm works {ok}",
        encoding: "GSM-7",
        carrier_id: h.carrier.id,
        carrier_message_id: body.message_id,
      },
    ]);
    const events = await h.pool.query("SELECT type FROM outbox_events WHERE message_id = $1", [
      answer.inbound_id,
    ]);
    expect(events.rows).toEqual([{ type: "message.received" }]);

    const again = await post(body);
    expect(again.status).toBe(202);
    expect(await again.json()).toMatchObject({ inbound_id: null, outcome: "duplicate" });
    const stored = await h.pool.query(
      "SELECT count(*)::int AS n FROM inbound_messages WHERE carrier_message_id = $1",
      [body.message_id],
    );
    expect(stored.rows[0].n).toBe(1);
  });

  it("stores many posted at once, each once, and a message posted twice concurrently once", async () => {
    const ids = Array.from({ length: 40 }, messageId);
    const twice = [...ids, ids[0]!, ids[1]!];
    const answers = await Promise.all(
      twice.map(async (id) =>
        (await post({ message_id: id, from: "+447700900124", to: NUMBER, text: `burst ${id}` })).json(),
      ),
    );
    expect(answers.filter((a: any) => a.outcome === "assigned")).toHaveLength(40);
    expect(answers.filter((a: any) => a.outcome === "duplicate")).toHaveLength(2);
    const { rows } = await h.pool.query(
      "SELECT count(*)::int AS n FROM inbound_messages WHERE carrier_message_id = ANY($1)",
      [ids],
    );
    expect(rows[0].n).toBe(40);
  });

  it("reassembles parts posted out of order, a part posted again not stored twice, hex decoded per data_coding", async () => {
    const reference = crypto.randomInt(65536);
    const part = (seq: number, text: string) =>
      post({
        message_id: messageId(),
        from: "+447700900125",
        to: NUMBER,
        text,
        part: { reference, total: 2, seq },
      });
    expect(await (await part(2, "ثانية")).json()).toMatchObject({ outcome: "part_waiting" });
    expect(await (await part(2, "ثانية")).json()).toMatchObject({ outcome: "duplicate_part" });
    const whole = (await (await part(1, "مرحبا ")).json()) as { inbound_id: string; outcome: string };
    expect(whole.outcome).toBe("assigned");
    const { rows } = await h.pool.query(
      "SELECT text, encoding, segments FROM inbound_messages WHERE id = $1",
      [whole.inbound_id],
    );
    expect(rows).toEqual([{ text: "مرحبا ثانية", encoding: "UCS-2", segments: 2 }]);

    const hex = await post({
      message_id: messageId(),
      from: "+447700900125",
      to: NUMBER,
      hex: Buffer.from("Café", "latin1").toString("hex"),
      data_coding: 3,
    });
    const stored = (await hex.json()) as { inbound_id: string };
    const latin = await h.pool.query("SELECT text FROM inbound_messages WHERE id = $1", [stored.inbound_id]);
    expect(latin.rows).toEqual([{ text: "Café" }]);
  });

  it("applies STOP posted over HTTP to the account's suppression list, as over SMPP", async () => {
    const response = await post({ message_id: messageId(), from: "+447700900126", to: NUMBER, text: "STOP" });
    expect(response.status).toBe(202);
    const { rows } = await h.pool.query(
      "SELECT number, source FROM suppressions WHERE account_id = $1 AND number = '+447700900126'",
      [h.accountId],
    );
    expect(rows).toEqual([{ number: "+447700900126", source: "keyword" }]);
  });

  it("refuses a missing or wrong token, another carrier's token and a carrier given none with 401; an unknown carrier with 404", async () => {
    const body = { message_id: messageId(), from: "+447700900127", to: NUMBER, text: "hi" };
    const missing = await post(body, { token: null });
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="carrier inbound"');
    expect((await errorOf(missing)).code).toBe("UNAUTHORIZED");
    expect((await post(body, { token: `${token}x` })).status).toBe(401);
    const other = await insertCarrier(h.pool, {
      port: 1,
      systemId: "other",
      password: "other123",
      enabled: false,
    });
    expect((await errorOf(await post(body, { carrierId: other }))).code).toBe("UNAUTHORIZED");
    const otherToken = generateSecretToken();
    await h.pool.query("UPDATE carriers SET inbound_token_hash = $2 WHERE id = $1", [
      other,
      hashSecretToken(otherToken),
    ]);
    expect((await post(body, { token: otherToken })).status).toBe(401);
    const unknown = await post(body, { carrierId: "car_nobody" });
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).code).toBe("NOT_FOUND");
    const { rows } = await h.pool.query(
      "SELECT count(*)::int AS n FROM inbound_messages WHERE carrier_message_id = $1",
      [body.message_id],
    );
    expect(rows[0].n).toBe(0);
  });

  it("answers malformed JSON, an oversize body, another media type and a bad field in the documented error shape", async () => {
    const invalid = await post("{not json");
    expect(invalid.status).toBe(400);
    expect((await errorOf(invalid)).code).toBe("INVALID_JSON");
    const oversize = await post({
      message_id: messageId(),
      from: "+447700900128",
      to: NUMBER,
      text: "x".repeat(17_000),
    });
    expect(oversize.status).toBe(413);
    expect((await errorOf(oversize)).code).toBe("PAYLOAD_TOO_LARGE");
    const form = await post("from=x", { contentType: "application/x-www-form-urlencoded" });
    expect(form.status).toBe(415);
    expect((await errorOf(form)).code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const both = await post({
      message_id: messageId(),
      from: "+447700900128",
      to: NUMBER,
      text: "a",
      hex: "61",
    });
    expect(both.status).toBe(400);
    expect(await errorOf(both)).toMatchObject({ code: "VALIDATION_ERROR", field: "text" });
    const noId = await post({ from: "+447700900128", to: NUMBER, text: "a" });
    expect(await errorOf(noId)).toMatchObject({ code: "VALIDATION_ERROR", field: "message_id" });
    const badPart = await post({
      message_id: messageId(),
      from: "+447700900128",
      to: NUMBER,
      text: "a",
      part: { reference: 1, total: 2, seq: 3 },
    });
    expect(await errorOf(badPart)).toMatchObject({ code: "VALIDATION_ERROR", field: "part.seq" });
    expect((await post([1, 2])).status).toBe(400);
  });
});
