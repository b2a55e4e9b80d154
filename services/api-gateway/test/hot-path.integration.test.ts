import http from "node:http";
import { sampleValue } from "@sms/metrics";
import { startTestGateway, type TestAccount, type TestGateway } from "./harness";

// POST /v1/sms/send is answered by a hot route (src/http/hot-route.ts) and its usual bodies are
// read without express.json (src/http/json-body.ts). These tests send the same requests down
// both ways and compare the answers: a request target in absolute form
// (`POST http://host/v1/sms/send`) is not the hot route's, so the app's routers take it; a
// media type spelt `application/json;charset=utf-8` (no space) goes to express.json.

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let g: TestGateway;
let port: number;
beforeAll(async () => {
  g = await startTestGateway();
  port = g.gateway.port;
});
afterAll(() => g.stop());

/** One raw HTTP request: nothing added or normalised by a client. */
function send(
  target: string,
  headers: Record<string, string>,
  body: Buffer | string | undefined,
  method = "POST",
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port, method, path: target, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode!,
          headers: response.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    request.on("error", reject);
    request.end(body);
  });
}

/** An answer with what differs from request to request (ids, times, the window) masked. */
function comparable(answer: Answer): unknown {
  const headers = { ...answer.headers };
  for (const varying of ["date", "x-request-id", "x-ratelimit-remaining", "x-ratelimit-reset"])
    delete headers[varying];
  const masked = answer.body
    .replace(/(req|msg)_[0-9A-Z]{26}/g, "$1_…")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, "<time>");
  return { status: answer.status, headers, body: masked };
}

const hotTarget = "/v1/sms/send";
const routedTarget = () => `http://127.0.0.1:${port}/v1/sms/send`;
const valid = { to: "+14155550100", message: "Hello there", sender_id: "ACME" };

describe("POST /v1/sms/send, hot route and routers", () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await g.createAccount({ credits: 1000, senders: ["ACME"] });
  });
  const json = (extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${account.key}`,
    "content-type": "application/json",
    ...extra,
  });

  it.each<[string, string, () => Record<string, string>, string | undefined]>([
    ["a valid send", "", () => json(), JSON.stringify(valid)],
    ["a send with a query string", "?x=1", () => json(), JSON.stringify({ ...valid, client_ref: "q" })],
    ["a body that fails the schema", "", () => json(), JSON.stringify({ ...valid, extra: 1 })],
    ["a number that is not one", "", () => json(), JSON.stringify({ ...valid, to: "+1415" })],
    ["a sender of another account", "", () => json(), JSON.stringify({ ...valid, sender_id: "OTHER" })],
    ["a body that is not JSON", "", () => json(), "{not json"],
    ["no key", "", () => ({ "content-type": "application/json" }), JSON.stringify(valid)],
    ["a malformed key", "", () => json({ authorization: "Bearer sk_live_x" }), JSON.stringify(valid)],
    ["another media type", "", () => json({ "content-type": "text/plain" }), JSON.stringify(valid)],
    ["no body", "", () => ({ authorization: `Bearer ${account.key}` }), undefined],
    ["a bad Idempotency-Key", "", () => json({ "idempotency-key": "a b" }), JSON.stringify(valid)],
  ])("answers %s alike", async (_name, query, headers, body) => {
    const hot = await send(hotTarget + query, headers(), body);
    const routed = await send(routedTarget() + query, headers(), body);
    expect(comparable(hot)).toEqual(comparable(routed));
  });

  it("replays an idempotent send and refuses its key with another body, alike", async () => {
    const replays: Answer[][] = [];
    for (const [n, target] of [hotTarget, routedTarget()].entries()) {
      const key = { "idempotency-key": `hot-path-${n}` };
      const first = await send(target, json(key), JSON.stringify(valid));
      const again = await send(target, json(key), JSON.stringify(valid));
      const other = await send(target, json(key), JSON.stringify({ ...valid, message: "other" }));
      expect(JSON.parse(again.body)).toEqual(JSON.parse(first.body));
      replays.push([first, again, other]);
    }
    expect(replays[0]!.map(comparable)).toEqual(replays[1]!.map(comparable));
    expect(replays[0]!.map((answer) => answer.status)).toEqual([202, 202, 409]);
    expect(replays[0]![1]!.headers["idempotent-replayed"]).toBe("true");
  });

  it("refuses over the request rate alike", async () => {
    for (const target of [hotTarget, routedTarget()]) {
      // An account of its own: the other target's requests must not share its window.
      const slow = await g.createAccount({ credits: 1000, senders: ["ACME"], requestsPerSecond: 1 });
      const headers = { authorization: `Bearer ${slow.key}`, "content-type": "application/json" };
      // Four at once fall in one window, unless they straddle a second's end: then try again.
      let refused: Answer[] = [];
      for (let attempt = 0; attempt < 5 && refused.length !== 3; attempt++) {
        const answers = await Promise.all(
          Array.from({ length: 4 }, () => send(target, headers, JSON.stringify(valid))),
        );
        refused = answers.filter((answer) => answer.status === 429);
      }
      expect(refused).toHaveLength(3);
      expect(refused[0]!.headers["retry-after"]).toBe("1");
      expect(refused[0]!.headers["x-ratelimit-limit"]).toBe("1");
      expect(JSON.parse(refused[0]!.body).error.code).toBe("RATE_LIMITED");
    }
  });

  it("labels its metrics as the routers did: no route for refusals at the door, the route's pattern after", async () => {
    const scrape = async () => (await fetch(`${g.healthUrl}/metrics`)).text();
    const count = (text: string, route: string, status: string) =>
      sampleValue(text, "sms_http_request_duration_seconds_count", {
        method: "POST",
        route,
        status_code: status,
      }) ?? 0;
    const before = await scrape();
    for (const target of [hotTarget, routedTarget()]) {
      expect((await send(target, json({ authorization: "Bearer x" }), JSON.stringify(valid))).status).toBe(
        401,
      );
      expect((await send(target, json(), "{not json")).status).toBe(400);
      expect((await send(target, json(), JSON.stringify({ ...valid, to: "+1415" }))).status).toBe(400);
      expect((await send(target, json(), JSON.stringify(valid))).status).toBe(202);
    }
    const after = await scrape();
    const delta = (route: string, status: string) =>
      count(after, route, status) - count(before, route, status);
    expect([delta("none", "401"), delta("none", "400"), delta("/v1/sms/send", "400")]).toEqual([2, 2, 2]);
    expect(delta("/v1/sms/send", "202")).toBe(2);
    expect(after).not.toContain("http://127.0.0.1");
  });
});

describe("JSON bodies read without express.json", () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await g.createAccount({ credits: 1000, senders: ["ACME"] });
  });
  const BOM = "\ufeff";
  const invalidUtf8 = Buffer.concat([
    Buffer.from('{"to":"+14155550100","sender_id":"ACME","message":"a'),
    Buffer.from([0xc3, 0x28, 0xff]),
    Buffer.from('b"}'),
  ]);

  it.each<[string, string | Buffer]>([
    ["a valid body", JSON.stringify(valid)],
    ["a body with a byte order mark", BOM + JSON.stringify(valid)],
    ["a byte order mark alone", BOM],
    ["whitespace alone", " \n\t "],
    ["whitespace before the object", "\r\n  " + JSON.stringify(valid)],
    ["a bare string", '"hello"'],
    ["a bare number after whitespace", "  42"],
    ["null", "null"],
    ["an array", "[1,2]"],
    ["a truncated object", '{"to":"+1415'],
    ["bytes that are not UTF-8", invalidUtf8],
    ["a body of many packets", JSON.stringify({ ...valid, message: "x".repeat(200_000) })],
  ])("reads %s as express.json does", async (_name, body) => {
    const headers = (type: string) => ({ authorization: `Bearer ${account.key}`, "content-type": type });
    const fast = await send(hotTarget, headers("application/json"), body);
    const parsed = await send(hotTarget, headers("application/json;charset=utf-8"), body);
    expect(comparable(fast)).toEqual(comparable(parsed));
    // Both spellings of the fast path answer alike too.
    const upper = await send(hotTarget, headers("Application/JSON; charset=UTF-8"), body);
    expect(comparable(upper)).toEqual(comparable(fast));
  });

  it("leaves bodies over the limit, compressed or chunked to express.json", async () => {
    const headers = { authorization: `Bearer ${account.key}`, "content-type": "application/json" };
    const large = await send(
      hotTarget,
      headers,
      JSON.stringify({ ...valid, message: "x".repeat(1_100_000) }),
    );
    expect(large.status).toBe(413);
    const gzip = await send(hotTarget, { ...headers, "content-encoding": "gzip" }, "not gzip");
    expect(gzip.status).toBe(400);
    const chunked = await new Promise<number>((resolve, reject) => {
      const request = http.request(
        { host: "127.0.0.1", port, method: "POST", path: hotTarget, headers },
        (response) => {
          response.resume();
          resolve(response.statusCode!);
        },
      );
      request.on("error", reject);
      request.write(JSON.stringify(valid).slice(0, 10));
      request.end(JSON.stringify(valid).slice(10));
    });
    expect(chunked).toBe(202);
  });
});
