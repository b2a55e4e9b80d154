import crypto from "node:crypto";
import { Webhook } from "standardwebhooks";
import { generateSecret, InvalidWebhookSecretError } from "./secret";
import { signWebhook } from "./sign-webhook";

// The vector the Standard Webhooks reference libraries test against.
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const TIMESTAMP = 1614265330;
const BODY = '{"test": 2432232314}';

describe("signWebhook", () => {
  it("signs the reference test vector exactly", () => {
    // Computed here from the spec's definition, independently of the package.
    const key = Buffer.from(SECRET.slice("whsec_".length), "base64");
    const independent = crypto
      .createHmac("sha256", key)
      .update(`${ID}.${TIMESTAMP}.${BODY}`)
      .digest("base64");
    expect(independent).toBe("g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");

    expect(signWebhook({ secret: SECRET, id: ID, timestamp: TIMESTAMP, body: BODY })).toEqual({
      "webhook-id": ID,
      "webhook-timestamp": "1614265330",
      "webhook-signature": `v1,${independent}`,
    });
  });

  it("takes a Date as well as unix seconds, dropping the milliseconds", () => {
    const fromDate = signWebhook({
      secret: SECRET,
      id: ID,
      timestamp: new Date(TIMESTAMP * 1000 + 999),
      body: BODY,
    });
    expect(fromDate).toEqual(signWebhook({ secret: SECRET, id: ID, timestamp: TIMESTAMP, body: BODY }));
  });

  it("is verified unchanged by the official standardwebhooks library", () => {
    const secret = generateSecret();
    const body = JSON.stringify({
      event: "message.delivered",
      message_id: "msg_1",
      data: { to: "+4915100000000" },
    });
    const headers = signWebhook({ secret, id: "evt_01HZX", timestamp: new Date(), body });
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it("signs with both secrets during a rotation, and the official library accepts either", () => {
    const [oldSecret, newSecret] = [generateSecret(), generateSecret()];
    const body = '{"event":"message.failed"}';
    const headers = signWebhook({
      secrets: [oldSecret, newSecret],
      id: "evt_01HZY",
      timestamp: new Date(),
      body,
    });
    const entries = headers["webhook-signature"].split(" ");
    expect(entries).toHaveLength(2);
    expect(entries.every((entry) => entry.startsWith("v1,"))).toBe(true);
    expect(new Webhook(oldSecret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(new Webhook(newSecret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSecret()).verify(body, { ...headers })).toThrow("No matching signature");
  });

  it("rejects a malformed secret with a clear error, even beside a good one", () => {
    const input = { id: ID, timestamp: TIMESTAMP, body: BODY };
    expect(() => signWebhook({ ...input, secret: "not-a-secret" })).toThrow(InvalidWebhookSecretError);
    expect(() => signWebhook({ ...input, secrets: [SECRET, "whsec_%%%"] })).toThrow(/followed by base64/);
    expect(() => signWebhook({ ...input, secrets: [] })).toThrow(/at least one secret/);
  });

  it("rejects timestamps and ids that cannot be signed unambiguously", () => {
    const input = { secret: SECRET, body: BODY };
    expect(() => signWebhook({ ...input, id: ID, timestamp: 1.5 })).toThrow(RangeError);
    expect(() => signWebhook({ ...input, id: ID, timestamp: new Date(Number.NaN) })).toThrow(RangeError);
    expect(() => signWebhook({ ...input, id: "evt.1", timestamp: TIMESTAMP })).toThrow(
      /without spaces or dots/,
    );
    expect(() => signWebhook({ ...input, id: "", timestamp: TIMESTAMP })).toThrow(RangeError);
  });
});
