import { lockedUntil, type SignInAttempt } from "./lockout";

const policy = { attempts: 3, windowMs: 15 * 60_000 };
const now = new Date("2026-11-22T12:00:00Z");
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
const fail = (m: number): SignInAttempt => ({ succeeded: false, at: minutesAgo(m) });
const ok = (m: number): SignInAttempt => ({ succeeded: true, at: minutesAgo(m) });

describe("lockedUntil", () => {
  it("is open below the limit and locked at it, until the oldest counted failure leaves the window", () => {
    expect(lockedUntil([], now, policy)).toBeNull();
    expect(lockedUntil([fail(1), fail(2)], now, policy)).toBeNull();
    expect(lockedUntil([fail(1), fail(2), fail(10)], now, policy)).toEqual(minutesAgo(10 - 15));
  });

  it("counts only failures inside the window", () => {
    expect(lockedUntil([fail(1), fail(2), fail(15), fail(16)], now, policy)).toBeNull();
  });

  it("forgets failures before the last success", () => {
    expect(lockedUntil([fail(1), fail(2), ok(3), fail(4), fail(5)], now, policy)).toBeNull();
    expect(lockedUntil([fail(1), fail(2), fail(3), ok(4)], now, policy)).toEqual(minutesAgo(3 - 15));
  });

  it("with more failures than the limit, unlocks when enough of them have aged out", () => {
    // Five failures, limit three: the third newest (minute 5) decides.
    const history = [fail(1), fail(2), fail(5), fail(6), fail(7)];
    expect(lockedUntil(history, now, policy)).toEqual(minutesAgo(5 - 15));
    expect(lockedUntil(history, minutesAgo(5 - 15), policy)).toBeNull();
  });
});
