import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { freePort } from "@sms/testing";
import { startTestGateway, type TestAccount, type TestGateway } from "./harness";

/**
 * The OpenAPI document the gateway serves against what it answers: every response of this
 * test is checked against the document (its status documented for the operation, its body
 * valid against that status's schema), and every documented status of every operation must
 * be seen at least once. 500 is documented for every operation and provoked by none: it is
 * the answer to a bug.
 */
const NEVER_PROVOKED = new Set(["500"]);

interface Operation {
  id: string;
  method: string;
  pattern: RegExp;
  pointer: string;
  statuses: string[];
  /** Statuses documented without a body (204). */
  bodiless: string[];
}

let gw: TestGateway;
/** The same database behind a Redis that is not there: every authenticated call is a 503. */
let noRedis: TestGateway;
let operations: Operation[];
let ajv: Ajv2020;
const seen = new Map<string, Set<string>>();
const problems: string[] = [];

beforeAll(async () => {
  gw = await startTestGateway({ BODY_LIMIT_BYTES: "2048" });
  noRedis = await startTestGateway({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` }, gw.world);
  const document = (await (await fetch(`${gw.url}/openapi.json`)).json()) as { paths: object };
  // OpenAPI 3.1 schemas are JSON Schema 2020-12; "example" and friends are annotations.
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, "openapi");
  operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(
    ([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => op?.operationId)
        .map(([method, op]) => ({
          id: op.operationId as string,
          method: method.toUpperCase(),
          pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
          pointer: `/paths/${path.replaceAll("~", "~0").replaceAll("/", "~1")}/${method}`,
          statuses: Object.keys(op.responses),
          bodiless: Object.keys(op.responses).filter((status) => !op.responses[status].content),
        })),
  );
}, 60_000);
afterAll(async () => {
  await noRedis?.stop();
  await gw?.stop();
});

/** One request, checked against the document; returns the status and the parsed body. */
async function call(
  base: string,
  method: string,
  url: string,
  options: {
    key?: string;
    body?: unknown;
    raw?: string;
    type?: string;
    headers?: Record<string, string>;
  } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers["content-type"] = options.type ?? "application/json";
  const response = await fetch(base + url, { method, headers, body });
  const text = await response.text();
  const type = response.headers.get("content-type")?.split(";")[0] ?? "application/json";
  const parsed = text && type === "application/json" ? JSON.parse(text) : text || null;
  const path = new URL(url, base).pathname;
  const operation = operations.find((op) => op.method === method && op.pattern.test(path));
  if (!operation) throw new Error(`${method} ${path} is no documented operation`);
  const status = String(response.status);
  seen.set(operation.id, (seen.get(operation.id) ?? new Set()).add(status));
  if (!operation.statuses.includes(status)) {
    problems.push(`${operation.id}: answered ${status}, which its document does not list`);
  } else if (operation.bodiless.includes(status)) {
    if (text !== "") problems.push(`${operation.id} ${status}: a body where the document says none`);
  } else {
    const schema = `openapi#${operation.pointer}/responses/${status}/content/${type.replace("/", "~1")}/schema`;
    let validate: ReturnType<Ajv2020["getSchema"]>;
    try {
      validate = ajv.getSchema(schema) ?? (ajv.addSchema({ $ref: schema }, schema), ajv.getSchema(schema));
    } catch {
      validate = undefined;
    }
    if (!validate)
      problems.push(`${operation.id} ${status}: answered ${type}, which its document does not list`);
    else if (!validate(parsed))
      problems.push(`${operation.id} ${status}: ${ajv.errorsText(validate.errors)} in ${text.slice(0, 300)}`);
  }
  return { status: response.status, body: parsed };
}

const at = (base: string) => ({
  get: (url: string, key?: string) => call(base, "GET", url, { key }),
  post: (url: string, key: string | undefined, body?: unknown, extra: Parameters<typeof call>[3] = {}) =>
    call(base, "POST", url, { key, body, ...extra }),
  del: (url: string, key?: string) => call(base, "DELETE", url, { key }),
});

const hourAgo = () => new Date(Date.now() - 3600_000).toISOString();
const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

describe("the served OpenAPI document and the answers agree", () => {
  let acme: TestAccount;
  let broke: TestAccount;
  let readOnly: string;
  let sendOnly: string;
  let slow: TestAccount;
  const api = () => at(gw.url);
  const sms = { to: "+14155550100", message: "contract", sender_id: "ACME" };
  const bulk = { sender_id: "ACME", messages: [{ to: "+14155550100", message: "one" }] };
  const unknownMessage = "msg_01JAAAAAAAAAAAAAAAAAAAAAAA";
  const unknownInbound = "in_01JAAAAAAAAAAAAAAAAAAAAAAA";

  beforeAll(async () => {
    acme = await gw.createAccount({ credits: 1000 });
    broke = await gw.createAccount({ credits: 0 });
    slow = await gw.createAccount({ requestsPerSecond: 1 });
    readOnly = await gw.addKey(acme, ["account:read"]);
    sendOnly = await gw.addKey(acme, ["sms:send"]);
  });

  it("checks bodies for real: a 202 of a send without its fields is refused by the schema", () => {
    const schema = `openapi#${operations.find((op) => op.id === "sendSms")!.pointer}/responses/202/content/application~1json/schema`;
    expect(ajv.validate({ $ref: schema }, { message_id: 42 })).toBe(false);
  });

  it("the successes of every operation", async () => {
    const sent = await api().post("/v1/sms/send", acme.key, sms);
    expect(sent.status).toBe(202);
    const scheduled = await api().post("/v1/sms/send", acme.key, {
      ...sms,
      scheduled_at: new Date(Date.now() + 3600_000).toISOString(),
    });
    const batch = await api().post("/v1/sms/bulk", acme.key, bulk);
    expect(batch.status).toBe(202);
    expect((await api().get(`/v1/sms/${sent.body.message_id}`, acme.key)).status).toBe(200);
    expect((await api().get("/v1/sms?limit=2", acme.key)).status).toBe(200);
    const exported = await api().get(`/v1/sms/export?since=${hourAgo()}&until=${inAnHour()}`, acme.key);
    expect(exported.status).toBe(200);
    expect(exported.body).toContain(sent.body.message_id);
    expect((await api().post(`/v1/sms/${scheduled.body.message_id}/cancel`, acme.key)).status).toBe(200);
    expect((await api().get(`/v1/batches/${batch.body.batch_id}`, acme.key)).status).toBe(200);
    const otp = await api().post("/v1/otp/send", acme.key, { phone: "+14155550111" });
    expect(otp.status).toBe(201);
    expect((await api().get(`/v1/otp/${otp.body.otp_id}`, acme.key)).status).toBe(200);
    expect(
      (await api().post("/v1/otp/verify", acme.key, { otp_id: otp.body.otp_id, code: "000000" })).status,
    ).toBe(200);
    expect((await api().get("/v1/account", acme.key)).status).toBe(200);
    // Inbound messages arrive from carriers (SMPP); two rows stand in for them here.
    for (const id of ["in_01JD6Z8Q4G2M0F3T6S8V9W0X21", "in_01JD6Z8Q4G2M0F3T6S8V9W0X22"])
      await gw.db.pool.query(
        `INSERT INTO inbound_messages (id, account_id, carrier_id, from_addr, to_addr, text, encoding, data_coding, segments, flags)
         VALUES ($1, $2, 'car_contract', '+14155550100', '+14155550199', 'hi', 'GSM-7', 0, 1, '{}')`,
        [id, acme.accountId],
      );
    const page = await api().get("/v1/inbound?limit=1", acme.key);
    expect(page.status).toBe(200);
    expect((await api().get(`/v1/inbound?cursor=${page.body.next_cursor}`, acme.key)).body.data).toHaveLength(
      1,
    );
    expect((await api().get(`/v1/inbound/${page.body.data[0].id}`, acme.key)).status).toBe(200);
    const optedOut = "+14155550177";
    expect((await api().post("/v1/suppressions", acme.key, { number: optedOut })).status).toBe(201);
    expect((await api().post("/v1/suppressions", acme.key, { number: optedOut })).status).toBe(200);
    expect((await api().get("/v1/suppressions?limit=1", acme.key)).status).toBe(200);
    expect((await api().post("/v1/sms/send", acme.key, { ...sms, to: optedOut })).status).toBe(422);
    expect((await api().post("/v1/otp/send", acme.key, { phone: optedOut })).status).toBe(422);
    expect((await api().del(`/v1/suppressions/${encodeURIComponent(optedOut)}`, acme.key)).status).toBe(204);
  });

  it("the refusals every operation documents", async () => {
    const otpId = (await api().post("/v1/otp/send", acme.key, { phone: "+14155550112" })).body.otp_id;
    const replaced = otpId;
    await api().post("/v1/otp/send", acme.key, { phone: "+14155550112" });
    const sentId = (await api().post("/v1/sms/send", acme.key, sms)).body.message_id;
    const posts: [string, unknown][] = [
      ["/v1/sms/send", sms],
      ["/v1/sms/bulk", bulk],
      [`/v1/sms/${sentId}/cancel`, undefined],
      ["/v1/otp/send", { phone: "+14155550113" }],
      ["/v1/otp/verify", { otp_id: otpId, code: "123456" }],
      ["/v1/suppressions", { number: "+14155550178" }],
    ];
    const gets = [
      "/v1/sms",
      `/v1/sms/export?since=${hourAgo()}&until=${inAnHour()}`,
      `/v1/sms/${sentId}`,
      `/v1/batches/bat_01JAAAAAAAAAAAAAAAAAAAAAAA`,
      `/v1/otp/${otpId}`,
      "/v1/account",
      "/v1/inbound",
      `/v1/inbound/${unknownInbound}`,
      "/v1/suppressions",
    ];
    const deletes = ["/v1/suppressions/%2B14155550179"];
    for (const url of gets) {
      await api().get(url); // 401
      await api().get(url, url === "/v1/account" ? sendOnly : readOnly); // 403
    }
    for (const [url, body] of posts) {
      await api().post(url, undefined, body); // 401
      await api().post(url, readOnly, body); // 403
      await api().post(url, acme.key, undefined, { raw: "{not json" }); // 400
      await api().post(url, acme.key, undefined, { raw: "x".repeat(3000) }); // 413
      await api().post(url, acme.key, undefined, { raw: "hello", type: "text/plain" }); // 415
      // 409: the same Idempotency-Key with another body.
      const once = { headers: { "idempotency-key": `contract-${url}` } };
      await api().post(url, acme.key, body ?? {}, once);
      await api().post(url, acme.key, { other: true }, once);
    }
    // 402 without credits; 400 and 403 of validation and sender checks.
    await api().post("/v1/sms/send", broke.key, sms);
    await api().post("/v1/sms/bulk", broke.key, bulk);
    await api().post("/v1/otp/send", broke.key, { phone: "+14155550114" });
    await api().post("/v1/sms/send", acme.key, { ...sms, sender_id: "NOTMINE" });
    await api().get("/v1/sms?limit=0", acme.key);
    await api().get("/v1/sms/export?since=2026-11-01T00:00:00Z&until=2026-12-15T00:00:00Z", acme.key);
    await api().get("/v1/inbound?since=yesterday", acme.key);
    await api().get("/v1/suppressions?limit=0", acme.key);
    for (const url of deletes) {
      await api().del(url); // 401
      await api().del(url, readOnly); // 403
      await api().del(url, acme.key); // 404: not on the list
    }
    await api().del("/v1/suppressions/not-a-number", acme.key); // 400
    // 404s of unknown ids; 409 of a message that cannot be canceled; 410 of a replaced OTP.
    await api().get(`/v1/sms/${unknownMessage}`, acme.key);
    await api().get(`/v1/inbound/${unknownInbound}`, acme.key);
    await api().get("/v1/batches/bat_01JAAAAAAAAAAAAAAAAAAAAAAA", acme.key);
    await api().post(`/v1/sms/${unknownMessage}/cancel`, acme.key);
    await api().post("/v1/otp/verify", acme.key, {
      otp_id: "otp_01JAAAAAAAAAAAAAAAAAAAAAAA",
      code: "123456",
    });
    await api().get("/v1/otp/otp_01JAAAAAAAAAAAAAAAAAAAAAAA", acme.key);
    await api().post("/v1/otp/verify", acme.key, { otp_id: replaced, code: "123456" });
    // 429: one request per second, each operation asked until it is refused. The window is the
    // clock's second, so two asks in a row can fall either side of its end (a CI run saw no 429).
    const untilRefused = async (ask: () => Promise<{ status: number }>) => {
      for (let i = 0; i < 5; i++) if ((await ask()).status === 429) return;
    };
    for (const url of gets) await untilRefused(() => api().get(url, slow.key));
    for (const [url, body] of posts) await untilRefused(() => api().post(url, slow.key, body));
    for (const url of deletes) await untilRefused(() => api().del(url, slow.key));
    // 503: Redis unreachable, every operation (each waits out the command timeout: all at once).
    const down = at(noRedis.url);
    await Promise.all([
      ...gets.map((url) => down.get(url, acme.key)),
      ...posts.map(([url, body]) => down.post(url, acme.key, body)),
      ...deletes.map((url) => down.del(url, acme.key)),
    ]);
  }, 60_000);

  // Last: the two cases above ran every request.
  it("saw every documented status of every operation, and nothing the document does not say", () => {
    const unseen = operations.flatMap((op) =>
      op.statuses
        .filter((status) => !NEVER_PROVOKED.has(status) && !seen.get(op.id)?.has(status))
        .map((status) => `${op.id} ${status}`),
    );
    expect({ problems, unseen }).toEqual({ problems: [], unseen: [] });
  });
});
