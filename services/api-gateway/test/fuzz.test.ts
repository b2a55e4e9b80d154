import { startTestGateway, type TestGateway } from "./harness";

let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway();
  ({ key } = await gw.createAccount({ credits: 100 }));
});
afterAll(() => gw.stop());

async function raw(path: string, body: Buffer | string | undefined, headers: Record<string, string>) {
  const r = await fetch(gw.url + path, { method: path.startsWith("/v1/sms/%00") ? "GET" : "POST", headers: { authorization: `Bearer ${key}`, ...headers }, body });
  return { status: r.status, text: (await r.text()).slice(0, 160) + " RL=" + r.headers.get("x-ratelimit-limit") };
}

it("probe", async () => {
  const J = { "content-type": "application/json" };
  const valid = { to: "+14155550100", message: "hi", sender_id: "ACME" };
  const cases: Array<[string, string, Buffer | string | undefined, Record<string, string>]> = [
    ["idem nul 1", "/v1/sms/send", JSON.stringify({ ...valid, sender_id: "AC\u0000ME" }), { ...J, "idempotency-key": "k-nul" }],
    ["idem nul 2", "/v1/sms/send", JSON.stringify({ ...valid, sender_id: "AC\u0000ME" }), { ...J, "idempotency-key": "k-nul" }],
    ["idem sur 1", "/v1/sms/send", '{"to":"+14155550100","message":"hi","sender_id":"\\ud800"}', { ...J, "idempotency-key": "k-sur" }],
    ["idem sur 2", "/v1/sms/send", '{"to":"+14155550100","message":"hi","sender_id":"\\ud800"}', { ...J, "idempotency-key": "k-sur" }],
    ["idem ok 1", "/v1/sms/send", JSON.stringify({ ...valid, sender_id: "NOPE" }), { ...J, "idempotency-key": "k-ok" }],
    ["idem ok 2", "/v1/sms/send", JSON.stringify({ ...valid, sender_id: "NOPE" }), { ...J, "idempotency-key": "k-ok" }],
    ["get nul", "/v1/sms/%00", undefined, {}],
  ];
  for (const [name, path, body, headers] of cases) {
    const r = await raw(path, body, headers);
    console.log(name, r.status, r.text.slice(0, 200));
  }
});
