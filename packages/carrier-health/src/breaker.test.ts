import { admits, NEW_RECORD, nextTransition, type BreakerRecord, type BreakerSettings } from "./breaker";

const settings: BreakerSettings = {
  windowMs: 10_000,
  minSubmits: 10,
  failurePercent: 50,
  openMs: 5_000,
  probes: 3,
};
const record = (over: Partial<BreakerRecord>): BreakerRecord => ({ ...NEW_RECORD, ...over });

describe("the carrier breaker's state machine", () => {
  it("stays closed below the minimum of submits, however many of them failed", () => {
    expect(nextTransition(record({ submits: 9, failures: 9 }), 1000, settings)).toBeNull();
  });

  it("stays closed while fewer than the failure share fail", () => {
    expect(nextTransition(record({ submits: 100, failures: 49 }), 1000, settings)).toBeNull();
  });

  it("opens at the failure share, for openMs, counting the trip", () => {
    expect(nextTransition(record({ submits: 100, failures: 50, trips: 2 }), 1000, settings)).toMatchObject({
      state: "open",
      since: 1000,
      until: 6000,
      trips: 3,
      resetWindow: false,
    });
  });

  it("stays open until its time is over, then lets probes through (half open)", () => {
    const open = record({ state: "open", since: 1000, until: 6000, submits: 100, failures: 100 });
    expect(nextTransition(open, 5999, settings)).toBeNull();
    expect(nextTransition(open, 6000, settings)).toMatchObject({
      state: "half_open",
      since: 6000,
      until: 11000,
    });
  });

  it("opens again when one probe fails, even after others succeeded", () => {
    const probing = record({
      state: "half_open",
      until: 11000,
      trips: 1,
      probesSucceeded: 2,
      probesFailed: 1,
    });
    expect(nextTransition(probing, 7000, settings)).toMatchObject({ state: "open", until: 12000, trips: 2 });
  });

  it("closes when every probe succeeded, and the window starts afresh", () => {
    const probing = record({
      state: "half_open",
      until: 11000,
      probesSucceeded: 3,
      submits: 50,
      failures: 50,
    });
    expect(nextTransition(probing, 7000, settings)).toMatchObject({ state: "closed", resetWindow: true });
  });

  it("waits for the probes' verdicts, and starts the probing over when they never come (a crashed replica)", () => {
    const probing = record({ state: "half_open", until: 11000, probesTaken: 3, probesSucceeded: 1 });
    expect(nextTransition(probing, 10999, settings)).toBeNull();
    expect(nextTransition(probing, 11000, settings)).toMatchObject({ state: "half_open", until: 16000 });
  });

  it("admits submits when closed, none when open, probes when half open", () => {
    expect(admits("closed")).toBe("yes");
    expect(admits("open")).toBe("no");
    expect(admits("half_open")).toBe("probe");
  });
});
