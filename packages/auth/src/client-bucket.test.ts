import { clientBucket } from "./client-bucket";

describe("clientBucket", () => {
  it("keeps IPv4 addresses, also IPv4-mapped ones", () => {
    expect(clientBucket("203.0.113.7")).toBe("203.0.113.7");
    expect(clientBucket("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("puts every address of an IPv6 /64 in one bucket, however it is written", () => {
    const bucket = clientBucket("2001:db8:1:2::1");
    expect(bucket).toBe("2001:db8:1:2::/64");
    for (const address of [
      "2001:db8:1:2:ffff:ffff:ffff:fffe",
      "2001:0db8:0001:0002:0:0:0:9",
      "2001:DB8:1:2::abcd",
    ])
      expect(clientBucket(address)).toBe(bucket);
    expect(clientBucket("2001:db8:1:3::1")).not.toBe(bucket);
    expect(clientBucket("::1")).toBe("0:0:0:0::/64");
  });
});
