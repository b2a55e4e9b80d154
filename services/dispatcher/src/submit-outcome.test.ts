import { CommandStatus } from "@sms/smpp";
import { CarrierBackoff } from "./carrier-backoff";
import { classifySubmitStatus, healthResult, ROUTE_SPECIFIC_FAILURES } from "./submit-outcome";

describe("route-specific permanent errors", () => {
  it("send ESME_RSUBMITFAIL, ESME_RINVSERTYP and ESME_RINVDCS to the next route, counted against the carrier", () => {
    for (const status of ROUTE_SPECIFIC_FAILURES) {
      const verdict = classifySubmitStatus(status);
      expect(verdict).toMatchObject({ kind: "route-refused", carrierFault: true });
      expect(healthResult(verdict)).toBe("failed");
    }
    expect(classifySubmitStatus(CommandStatus.ESME_RSUBMITFAIL)).toEqual({
      kind: "route-refused",
      errorCode: "SMPP_ESME_RSUBMITFAIL",
      carrierFault: true,
    });
  });

  it("count a destination refusal and our own bad PDU as a carrier that answered well", () => {
    expect(healthResult(classifySubmitStatus(CommandStatus.ESME_RINVDSTADR))).toBe("refused");
    expect(healthResult(classifySubmitStatus(CommandStatus.ESME_RINVESMCLASS))).toBe("refused");
    expect(healthResult(classifySubmitStatus(CommandStatus.ESME_RSYSERR))).toBe("failed");
    expect(healthResult(classifySubmitStatus(CommandStatus.ESME_RTHROTTLED))).toBe("throttled");
    expect(healthResult(classifySubmitStatus(CommandStatus.ESME_ROK))).toBe("accepted");
  });
});

describe("CarrierBackoff", () => {
  it("pauses the whole carrier, doubles only once a pause is over, and ends on an accepted submit", () => {
    const backoff = new CarrierBackoff(100, 1000);
    backoff.hit("a", 0);
    const first = backoff.remainingMs("a", 0);
    expect(first).toBeGreaterThanOrEqual(80);
    expect(first).toBeLessThanOrEqual(120);
    backoff.hit("a", 10); // an answer to a submit already on the wire: no compounding
    expect(backoff.remainingMs("a", 10)).toBe(first - 10);
    backoff.hit("a", 200);
    expect(backoff.remainingMs("a", 200)).toBeGreaterThanOrEqual(160);
    expect(backoff.remainingMs("b", 200)).toBe(0);
    for (let t = 1000; t < 20_000; t += 2000) backoff.hit("a", t);
    expect(backoff.remainingMs("a", 19_000)).toBeLessThanOrEqual(1200);
    backoff.clear("a");
    expect(backoff.remainingMs("a", 19_000)).toBe(0);
  });
});
