import { generateSecret, InvalidWebhookSecretError } from "./secret";
import { signWebhook } from "./sign-webhook";
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from "./verify-webhook";

const NOW = 1_700_000_000;
const BODY = '{"event":"message.delivered","message_id":"msg_1"}';

function signed(secret = generateSecret(), timestamp = NOW) {
  return { secret, headers: signWebhook({ secret, id: "evt_01HZX", timestamp, body: BODY }) };
}

function reasonOf(verify: () => unknown): WebhookVerificationReason | undefined {
  try {
    verify();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  return undefined;
}

describe("verifyWebhook", () => {
  it("accepts a delivery we signed and returns its id and timestamp", () => {
    const { secret, headers } = signed();
    expect(verifyWebhook({ secret, headers, body: BODY, now: NOW })).toEqual({
      id: "evt_01HZX",
      timestamp: NOW,
    });
  });

  it("matches header names case-insensitively", () => {
    const { secret, headers } = signed();
    const shouted = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(() => verifyWebhook({ secret, headers: shouted, body: BODY, now: NOW })).not.toThrow();
  });

  it("accepts any of several signatures, so receivers keep working through a rotation", () => {
    const [oldSecret, newSecret] = [generateSecret(), generateSecret()];
    const headers = signWebhook({ secrets: [oldSecret, newSecret], id: "evt_1", timestamp: NOW, body: BODY });
    for (const secret of [oldSecret, newSecret]) {
      expect(() => verifyWebhook({ secret, headers, body: BODY, now: NOW })).not.toThrow();
    }
    // Unknown versions beside a valid v1 are ignored, as the spec asks.
    const withFuture = { ...headers, "webhook-signature": `v2,abc ${headers["webhook-signature"]}` };
    expect(() =>
      verifyWebhook({ secret: newSecret, headers: withFuture, body: BODY, now: NOW }),
    ).not.toThrow();
  });

  it("rejects a tampered body, id or timestamp", () => {
    const { secret, headers } = signed();
    const verify =
      (h: Record<string, string>, body = BODY) =>
      () =>
        verifyWebhook({ secret, headers: h, body, now: NOW });
    expect(reasonOf(verify(headers, BODY.replace("delivered", "failed")))).toBe("no_matching_signature");
    expect(reasonOf(verify(headers, BODY + " "))).toBe("no_matching_signature");
    expect(reasonOf(verify({ ...headers, "webhook-id": "evt_01HZY" }))).toBe("no_matching_signature");
    expect(reasonOf(verify({ ...headers, "webhook-timestamp": String(NOW + 1) }))).toBe(
      "no_matching_signature",
    );
  });

  it("rejects another secret's signature and signatures of the wrong length", () => {
    const { headers } = signed();
    const secret = generateSecret();
    const verify = (signature: string) => () =>
      verifyWebhook({
        secret,
        headers: { ...headers, "webhook-signature": signature },
        body: BODY,
        now: NOW,
      });
    expect(reasonOf(verify(headers["webhook-signature"]))).toBe("no_matching_signature");
    expect(reasonOf(verify("v1,"))).toBe("no_matching_signature");
    expect(reasonOf(verify(headers["webhook-signature"] + "A"))).toBe("no_matching_signature");
  });

  it("accepts timestamps within the tolerance either way and rejects those outside it", () => {
    const { secret, headers } = signed();
    const at = (now: number | Date, toleranceSeconds?: number) => () =>
      verifyWebhook({ secret, headers, body: BODY, now, toleranceSeconds });
    expect(reasonOf(at(NOW + 300))).toBeUndefined();
    expect(reasonOf(at(NOW - 300))).toBeUndefined();
    expect(reasonOf(at(NOW + 301))).toBe("timestamp_too_old");
    expect(reasonOf(at(NOW - 301))).toBe("timestamp_too_new");
    expect(reasonOf(at(NOW + 11, 10))).toBe("timestamp_too_old");
    expect(reasonOf(at(new Date((NOW + 10) * 1000 + 999), 10))).toBeUndefined();
  });

  it("rejects missing headers and a timestamp that is not plain unix seconds", () => {
    const { secret, headers } = signed();
    const verify = (h: Record<string, string | undefined>) => () =>
      verifyWebhook({ secret, headers: h, body: BODY, now: NOW });
    expect(reasonOf(verify({ ...headers, "webhook-signature": undefined }))).toBe("missing_headers");
    expect(reasonOf(verify({ ...headers, "webhook-id": "" }))).toBe("missing_headers");
    expect(reasonOf(verify({ ...headers, "webhook-timestamp": `${NOW}abc` }))).toBe("invalid_timestamp");
    expect(reasonOf(verify({ ...headers, "webhook-timestamp": "-1" }))).toBe("invalid_timestamp");
  });

  it("reports a malformed receiver secret as a configuration error, not a bad delivery", () => {
    const { headers } = signed();
    expect(() => verifyWebhook({ secret: "whsec_short", headers, body: BODY, now: NOW })).toThrow(
      InvalidWebhookSecretError,
    );
  });
});
