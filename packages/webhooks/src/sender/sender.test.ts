import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { generateSecret } from "@sms/webhook-signing";
import { createWebhookSender, RESPONSE_BODY_LIMIT, type WebhookSender } from "./index";

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

async function startReceiver(
  handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void,
): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const body = JSON.stringify({ event: "message.delivered", message_id: "msg_1", data: { sequence: 3 } });

describe("webhook sender (real HTTP on loopback)", () => {
  let sender: WebhookSender;
  beforeAll(() => {
    sender = createWebhookSender({ timeoutMs: 500, allowLoopback: true, allowHttp: true });
  });
  afterAll(() => sender.close());

  it("POSTs the exact body with Standard Webhooks headers that the official library verifies", async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    const secret = generateSecret();
    const result = await sender.send({ url: receiver.url, secrets: [secret], id: "evt_01J", body });
    await receiver.close();
    expect(result).toMatchObject({ outcome: "success", statusCode: 204, error: null });
    const got = receiver.received[0]!;
    expect(got.body).toBe(body);
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.headers["webhook-id"]).toBe("evt_01J");
    const verified = new Webhook(secret).verify(got.body, got.headers as Record<string, string>);
    expect(verified).toEqual(JSON.parse(body));
  });

  it("signs with both secrets during a rotation; each verifies alone", async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(200).end("ok"));
    const [next, previous] = [generateSecret(), generateSecret()];
    await sender.send({ url: receiver.url, secrets: [next, previous], id: "evt_02", body });
    await receiver.close();
    const { headers } = receiver.received[0]!;
    expect(String(headers["webhook-signature"]).split(" ")).toHaveLength(2);
    for (const secret of [next, previous])
      expect(() => new Webhook(secret).verify(body, headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(generateSecret()).verify(body, headers as Record<string, string>)).toThrow();
  });

  it("classifies 410 as gone, other statuses and redirects as failures, and keeps 4 KiB of the answer", async () => {
    const answers = [
      (res: http.ServerResponse) => res.writeHead(410).end("gone"),
      (res: http.ServerResponse) => res.writeHead(500).end("x".repeat(100_000)),
      (res: http.ServerResponse) => res.writeHead(302, { location: "http://127.0.0.1:1/elsewhere" }).end(),
      (res: http.ServerResponse) => res.writeHead(503, { "retry-after": "7" }).end(),
      (res: http.ServerResponse) => res.writeHead(429, { "retry-after": "99999999" }).end(),
      (res: http.ServerResponse) => res.writeHead(400, { "retry-after": "7" }).end(),
    ];
    let i = 0;
    const receiver = await startReceiver((_req, res) => answers[i++]!(res));
    const results = [];
    for (let n = 0; n < answers.length; n++)
      results.push(
        await sender.send({ url: receiver.url, secrets: [generateSecret()], id: `evt_${n}`, body }),
      );
    await receiver.close();
    expect(results.map((r) => [r.outcome, r.statusCode])).toEqual([
      ["gone", 410],
      ["failure", 500],
      ["failure", 302],
      ["failure", 503],
      ["failure", 429],
      ["failure", 400],
    ]);
    expect(results[1]!.responseBody).toHaveLength(RESPONSE_BODY_LIMIT);
    expect(results[1]!.error).toBe("HTTP 500");
    expect(results.map((r) => r.retryAfterMs)).toEqual([null, null, null, 7000, 24 * 3600 * 1000, null]);
    expect(receiver.received).toHaveLength(answers.length);
  });

  it("gives up at the timeout and says so", async () => {
    const receiver = await startReceiver((_req, res) => {
      const timer = setTimeout(() => res.writeHead(200).end(), 2000);
      res.once("close", () => clearTimeout(timer)); // no timer left behind to hold the test worker
    });
    const result = await sender.send({ url: receiver.url, secrets: [generateSecret()], id: "evt_t", body });
    await receiver.close();
    expect(result.outcome).toBe("failure");
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/timeout/i);
    expect(result.latencyMs).toBeGreaterThanOrEqual(450);
    expect(result.latencyMs).toBeLessThan(1500);
  });

  it("reports a refused connection as a failure", async () => {
    const receiver = await startReceiver((_req, res) => res.end());
    const url = receiver.url;
    await receiver.close();
    const result = await sender.send({ url, secrets: [generateSecret()], id: "evt_r", body });
    expect(result).toMatchObject({ outcome: "failure", statusCode: null });
    expect(result.error).toMatch(/ECONNREFUSED/);
  });
});

describe("webhook sender SSRF guard (loopback not allowed)", () => {
  let sender: WebhookSender;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    sender = createWebhookSender({ timeoutMs: 1000, allowLoopback: false, allowHttp: true });
    receiver = await startReceiver((_req, res) => res.writeHead(200).end());
  });
  afterAll(async () => {
    sender.close();
    await receiver.close();
  });

  const port = () => new URL(receiver.url).port;
  const targets = () => [
    `http://127.0.0.1:${port()}/`,
    `http://localhost:${port()}/`, // a host name that resolves to 127.0.0.1: refused at connect time
    `https://localhost:${port()}/`, // the same through the https agent, before any TLS
    `http://[::1]:${port()}/`,
    `http://[::ffff:127.0.0.1]:${port()}/`,
    `http://[::ffff:7f00:1]:${port()}/`,
    `http://[64:ff9b::7f00:1]:${port()}/`,
    `http://0x7f.0.0.1:${port()}/`,
    `http://2130706433:${port()}/`,
    "http://10.1.2.3/",
    "http://172.16.0.1/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://100.64.0.1/",
    "http://0.0.0.0/",
    "http://224.0.0.1/",
    "http://240.0.0.1/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://[ff02::1]/",
  ];

  it.each([...Array(20).keys()])("refuses blocked target #%i without connecting", async (index) => {
    const url = targets()[index]!;
    const result = await sender.send({ url, secrets: [generateSecret()], id: "evt_b", body });
    expect(result.outcome).toBe("failure");
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/blocked|not allowed|Refusing/i);
    expect(receiver.received).toHaveLength(0);
  });

  it("never echoes the address a refused host name resolves to", async () => {
    const result = await sender.send({
      url: `http://localhost:${port()}/`,
      secrets: [generateSecret()],
      id: "evt_n",
      body,
    });
    expect(result.error).toMatch(/localhost.*blocked address/);
    expect(result.error).not.toMatch(/127\.0\.0\.1|::1|loopback/);
  });

  it("refuses http when only https is allowed, and credentials in the URL", async () => {
    const strict = createWebhookSender({ timeoutMs: 1000, allowLoopback: true, allowHttp: false });
    const plain = await strict.send({ url: receiver.url, secrets: [generateSecret()], id: "evt_h", body });
    const withUser = await sender.send({
      url: "https://user:pw@example.com/",
      secrets: [generateSecret()],
      id: "evt_c",
      body,
    });
    strict.close();
    expect(plain.error).toMatch(/scheme http: is not allowed/);
    expect(withUser.error).toMatch(/credentials/);
    expect(receiver.received).toHaveLength(0);
  });
});
