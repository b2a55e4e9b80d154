import { rateLimitHeaders } from "./rate-limit-headers";

describe("rateLimitHeaders", () => {
  it("describes the window of an allowed request without Retry-After", () => {
    expect(
      rateLimitHeaders({
        allowed: true,
        limit: 100,
        remaining: 99,
        resetEpochSeconds: 1_750_000_001,
        retryAfterSeconds: 0,
      }),
    ).toEqual({
      "X-RateLimit-Limit": "100",
      "X-RateLimit-Remaining": "99",
      "X-RateLimit-Reset": "1750000001",
    });
  });

  it("adds Retry-After to a refusal", () => {
    const headers = rateLimitHeaders({
      allowed: false,
      reason: "RATE_LIMITED",
      limit: 100,
      remaining: 0,
      resetEpochSeconds: 1_750_000_001,
      retryAfterSeconds: 1,
    });
    expect(headers["Retry-After"]).toBe("1");
    expect(headers["X-RateLimit-Remaining"]).toBe("0");
  });

  it("never tells a refused client to retry after 0 seconds", () => {
    const headers = rateLimitHeaders({
      allowed: false,
      limit: 1,
      remaining: 0,
      resetEpochSeconds: 1,
      retryAfterSeconds: 0,
    });
    expect(headers["Retry-After"]).toBe("1");
  });
});
