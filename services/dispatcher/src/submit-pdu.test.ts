import { splitMessage } from "@sms/sms-encoding";
import { buildSubmitSm, relativeValidity } from "./submit-pdu";

describe("validity_period toward the carrier (docs/messages.md#validity)", () => {
  const now = Date.parse("2026-11-22T10:00:00Z");

  it("is what is left of the validity, in the relative form", () => {
    expect(relativeValidity(new Date(now + 10_000), now)).toBe("000000000010000R");
    expect(relativeValidity(new Date(now + (2 * 86_400 + 3600 + 30 * 60 + 5) * 1000), now)).toBe(
      "000002013005000R",
    );
    expect(relativeValidity(new Date(now + 72 * 3600_000), now)).toBe("000003000000000R");
  });

  it("rounds a part second up, and never asks for less than a second", () => {
    expect(relativeValidity(new Date(now + 1500), now)).toBe("000000000002000R");
    expect(relativeValidity(new Date(now - 5000), now)).toBe("000000000001000R");
  });

  it("goes into submit_sm; a message without a validity end sends none", () => {
    const [part] = splitMessage("hello", { reference: 1 });
    const expiresAt = new Date(Date.now() + 3600_000);
    const pdu = buildSubmitSm({ to: "+14155550100", senderId: "ACME", expiresAt }, part!);
    expect(pdu.validity_period).toMatch(/^0000000(05959|10000)000R$/);
    expect(buildSubmitSm({ to: "+14155550100", senderId: "ACME" }, part!)).not.toHaveProperty(
      "validity_period",
    );
  });
});
