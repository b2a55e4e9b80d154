import fc from "fast-check";
import { Webhook } from "standardwebhooks";
import { generateSecret } from "./secret";
import { signWebhook } from "./sign-webhook";
import { verifyWebhook, WebhookVerificationError } from "./verify-webhook";

const secret = generateSecret();
const other = generateSecret();
// Any Unicode, astral planes included: the body is signed as UTF-8 and must survive that.
const body = fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" }), fc.json());
const id = fc.stringMatching(/^evt_[0-9A-Z]{1,26}$/);
const timestamp = fc.integer({ min: 0, max: 4_102_444_800 });

describe("sign → verify", () => {
  it("round-trips any body, id and timestamp, with one secret or a rotated pair", () => {
    fc.assert(
      fc.property(body, id, timestamp, fc.boolean(), (text, eventId, seconds, isRotating) => {
        const headers = signWebhook({
          ...(isRotating ? { secrets: [other, secret] } : { secret }),
          id: eventId,
          timestamp: seconds,
          body: text,
        });
        expect(verifyWebhook({ secret, headers, body: text, now: seconds })).toEqual({
          id: eventId,
          timestamp: seconds,
        });
      }),
    );
  });

  it("rejects any change to the body", () => {
    fc.assert(
      fc.property(body, body, (text, altered) => {
        // Lone surrogates all encode to U+FFFD, so compare what goes on the wire.
        fc.pre(!Buffer.from(text).equals(Buffer.from(altered)));
        const headers = signWebhook({ secret, id: "evt_1", timestamp: 1, body: text });
        expect(() => verifyWebhook({ secret, headers, body: altered, now: 1 })).toThrow(
          WebhookVerificationError,
        );
      }),
    );
  });

  it("agrees with the official library on any body", () => {
    fc.assert(
      fc.property(body, (text) => {
        const headers = signWebhook({ secret, id: "evt_1", timestamp: new Date(), body: text });
        expect(() => new Webhook(secret).verify(text, { ...headers }, { jsonParse: false })).not.toThrow();
      }),
      { numRuns: 50 },
    );
  });
});
