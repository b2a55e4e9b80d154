// pnpm test:containers: docker-compose.yml for real, on the local stand-in base images.
import { execFileSync } from "node:child_process";
import { Webhook } from "standardwebhooks";
import { ComposeProject, freshSecrets } from "./harness";

const project = new ComposeProject(`smsct${process.pid}`, {
  ...freshSecrets(),
  // Published on loopback ports Docker chooses: nothing clashes with what runs on this host.
  PUBLISH_API: "127.0.0.1:",
  PUBLISH_SMPP: "127.0.0.1:",
  PUBLISH_DASHBOARD: "127.0.0.1:",
  PUBLISH_OPS_CONSOLE: "127.0.0.1:",
});
let api = "";
let key = "";
let accountId = "";

interface Reply {
  status: number;
  body: { message_id?: string; status?: string; error?: { code: string; message: string } };
}

async function call(method: string, route: string, body?: unknown, timeoutMs = 10_000): Promise<Reply> {
  const response = await fetch(`${api}${route}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: response.status, body: (await response.json()) as Reply["body"] };
}

/** What the README's curl line sends. */
const send = (message = "Your order has shipped") =>
  call("POST", "/v1/sms/send", { to: "+14155550100", message, sender_id: "DEMO" });

async function waitDelivered(ids: string[], timeoutMs: number): Promise<Map<string, string>> {
  const statuses = new Map<string, string>();
  const deadline = Date.now() + timeoutMs;
  let pending = [...ids];
  while (pending.length > 0 && Date.now() < deadline) {
    for (const id of pending) statuses.set(id, (await call("GET", `/v1/sms/${id}`)).body.status ?? "?");
    pending = pending.filter((id) => statuses.get(id) !== "delivered");
    if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return statuses;
}

beforeAll(async () => {
  const started = Date.now();
  await project.compose("up", "-d", "--no-build");
  await project.waitHealthy(["migrate", "seed"], 180_000);
  const healthy = Date.now();
  api = `http://127.0.0.1:${await project.port("api-gateway", 3000)}`;
  const seed = await project.compose("logs", "--no-color", "seed");
  key = /API key: (sk_\S+)/.exec(seed)?.[1] ?? "";
  accountId = /Demo account (acc_\S+)/.exec(seed)?.[1] ?? "";
  if (!key || !accountId) throw new Error(`no demo key in the seed step's output:\n${seed}`);
  const sent = await send();
  const delivered = await waitDelivered([sent.body.message_id!], 60_000);
  console.log(
    `compose up → every service healthy: ${((healthy - started) / 1000).toFixed(1)} s; ` +
      `→ first message delivered: ${((Date.now() - started) / 1000).toFixed(1)} s (${delivered.get(sent.body.message_id!)})`,
  );
}, 300_000);

afterAll(async () => {
  if (process.env.CONTAINERS_KEEP !== "1") await project.compose("down", "-v", "--remove-orphans");
}, 120_000);

afterEach(async () => {
  const state = expect.getState();
  if (state.assertionCalls !== state.numPassingAsserts) console.log(await project.logs());
});

describe("docker compose up with the stand-in images", () => {
  it("takes the README's send and the message comes back delivered", async () => {
    const sent = await send();
    expect(sent.status).toBe(202);
    expect(sent.body.status).toBe("queued");
    const statuses = await waitDelivered([sent.body.message_id!], 60_000);
    expect(statuses.get(sent.body.message_id!)).toBe("delivered");
  }, 90_000);

  it("signs the webhooks it sends to a receiver, and the signatures verify", async () => {
    // Run where the receiver is reachable on loopback: inside webhook-delivery's namespace.
    const set = await project.compose(
      "exec",
      "-T",
      "webhook-delivery",
      "/app/scripts/container-entrypoint.sh",
      "admin",
      "webhook",
      "set",
      accountId,
      "http://127.0.0.1:9099/sms-events",
      "--json",
    );
    const { secret } = JSON.parse(set) as { secret: string };
    expect(secret).toMatch(/^whsec_/);
    const sent = await send("Webhook check");
    const id = sent.body.message_id!;
    const verifier = new Webhook(secret);
    let delivered: { event: string; message_id: string } | undefined;
    const deadline = Date.now() + 60_000;
    while (!delivered && Date.now() < deadline) {
      const logs = await project.compose("logs", "--no-color", "webhook-receiver");
      for (const line of logs.split("\n")) {
        const json = line.slice(line.indexOf("{"));
        if (!json.startsWith('{"received"')) continue;
        const { headers, body } = (
          JSON.parse(json) as { received: { headers: Record<string, string>; body: string } }
        ).received;
        const event = JSON.parse(body) as { event: string; message_id: string };
        if (event.event !== "message.delivered" || event.message_id !== id) continue;
        // Throws unless webhook-signature is the HMAC of this id, timestamp and body under the secret.
        verifier.verify(body, headers);
        delivered = event;
      }
      if (!delivered) await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    expect(delivered?.message_id).toBe(id);
  }, 120_000);

  it("answers 503 while PostgreSQL is stopped for 10 s, loses nothing it accepted, and resumes by itself", async () => {
    const accepted: string[] = [];
    const answers: Array<{ at: number; status: number | string; code?: string }> = [];
    let stopAt = Infinity;
    let startAt = Infinity;
    const sending = (async () => {
      const until = Date.now() + 45_000;
      while (Date.now() < until) {
        const at = Date.now();
        try {
          const reply = await send(`Outage check ${answers.length}`);
          answers.push({ at, status: reply.status, code: reply.body.error?.code });
          if (reply.status === 202) accepted.push(reply.body.message_id!);
        } catch (error) {
          answers.push({ at, status: (error as Error).name });
        }
        // Once PostgreSQL is back, stop after ten acceptances in a row.
        const tail = answers.slice(-10);
        if (at > startAt && tail.length === 10 && tail.every((a) => a.status === 202)) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    stopAt = Date.now();
    await project.compose("stop", "postgres");
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    startAt = Date.now();
    await project.compose("start", "postgres");
    await sending;

    const during = answers.filter((a) => a.at > stopAt + 2000 && a.at < startAt);
    const summary = JSON.stringify(answers.map((a) => `${a.at - stopAt}:${a.status}`));
    expect(during.length).toBeGreaterThan(0);
    // While it is down: the documented 503, never a hang past the client's 10 s or a 500.
    for (const answer of during) expect([answer.status, answer.code]).toEqual([503, "SERVICE_UNAVAILABLE"]);
    for (const answer of answers) expect([202, 503]).toContain(answer.status);
    // Back by itself: the last ten sends were accepted.
    expect(answers.slice(-10).map((a) => a.status)).toEqual(Array(10).fill(202));
    const statuses = await waitDelivered(accepted, 120_000);
    const lost = accepted.filter((id) => statuses.get(id) !== "delivered");
    expect({ lost, summary: lost.length ? summary : "" }).toEqual({ lost: [], summary: "" });
    console.log(
      `outage: ${answers.length} sends, ${accepted.length} accepted (all delivered), ` +
        `${answers.filter((a) => a.status === 503).length} answered 503; ` +
        `first 202 ${((answers.find((a) => a.at > startAt && a.status === 202)?.at ?? NaN) - startAt) / 1000} s after PostgreSQL started again`,
    );
  }, 240_000);

  it("refuses to start without SECRET_ENCRYPTION_KEY, in one line that names it and says how to make one", () => {
    const unset = new ComposeProject(`${project.name}x`, {
      OTP_HMAC_SECRET: project.env.OTP_HMAC_SECRET,
      OPS_CONSOLE_PASSWORD_HASH: project.env.OPS_CONSOLE_PASSWORD_HASH,
      SECRET_ENCRYPTION_KEY: undefined,
    });
    const { status, stderr } = unset.composeStatus("up", "-d", "--no-build");
    expect(status).not.toBe(0);
    const lines = stderr.split("\n").filter((line) => line.trim() !== "");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /SECRET_ENCRYPTION_KEY is not set - 32 random bytes in base64 \(openssl rand -base64 32\)/,
    );
    // Nothing was created for it.
    const created = execFileSync("docker", [
      "ps",
      "-aq",
      "--filter",
      `label=com.docker.compose.project=${unset.name}`,
    ]);
    expect(created.toString().trim()).toBe("");
  });
});
