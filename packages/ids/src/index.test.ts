import { encodeUlid, idBoundAt, idRange, idTime, isId, newId, newMessageId, ulid } from "./index";

describe("ids", () => {
  it("makes prefixed, sortable ids that fit an SMPP message_id", () => {
    const ids = Array.from({ length: 1000 }, () => newId("msg"));
    expect(ids.every((id) => isId("msg", id) && id.length <= 64)).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("rejects ids of another prefix or shape", () => {
    expect(isId("msg", newId("otp"))).toBe(false);
    expect(isId("msg", "msg_123")).toBe(false);
    expect(isId("msg", "msg_01ARZ3NDEKTSV4RRFFQ69G5FAV")).toBe(true);
  });
});

describe("idRange", () => {
  it("gives the smallest and the largest id, as the database orders them", () => {
    const ids = [
      newMessageId(new Date(Date.now() + 7 * 86_400_000)),
      newId("msg"),
      idBoundAt("msg", Date.now() - 86_400_000),
    ];
    const sorted = [...ids].sort();
    expect(idRange(ids)).toEqual({ first: sorted[0], last: sorted[2] });
    expect(idRange([ids[1]!])).toEqual({ first: ids[1], last: ids[1] });
    expect(() => idRange([])).toThrow();
  });
});

describe("ulid", () => {
  it("encodes the time in the first 10 characters, like the ULID spec", () => {
    // 1469918176385 ms is "01ARYZ6S41" in the spec's example.
    expect(encodeUlid(1469918176385, new Uint8Array(10)).slice(0, 10)).toBe("01ARYZ6S41");
    expect(encodeUlid(1469918176385, new Uint8Array(10).fill(255))).toBe("01ARYZ6S41ZZZZZZZZZZZZZZZZ");
  });

  it("stays sortable within one millisecond", () => {
    const same = Array.from({ length: 500 }, () => ulid(1700000000000));
    expect([...same].sort()).toEqual(same);
    expect(new Set(same).size).toBe(same.length);
  });

  it("does not give away the next id of the same millisecond (no +1 step)", () => {
    const randomPart = (id: string) =>
      [...id.slice(10)].reduce((n, c) => n * 32n + BigInt("0123456789ABCDEFGHJKMNPQRSTVWXYZ".indexOf(c)), 0n);
    const same = Array.from({ length: 200 }, () => randomPart(ulid(1700000000001)));
    const steps = same.slice(1).map((value, i) => value - same[i]!);
    expect(steps.every((step) => step > 0n)).toBe(true);
    const lowBits = (1n << 48n) - 1n;
    const predictable = steps.filter((step) => (step & lowBits) === 1n || step < 1n << 20n);
    expect(predictable).toHaveLength(0);
  });

  it("bounds ids by creation time: the bound of a time sorts above every id made before it and below every id made from then on", () => {
    const time = Date.UTC(2026, 2, 1);
    const at = (ms: number, fill: number) => `evt_${encodeUlid(ms, new Uint8Array(10).fill(fill))}`;
    const bound = idBoundAt("evt", time);
    expect(at(time - 1, 255) < bound).toBe(true);
    expect(at(time, 0) >= bound).toBe(true);
    expect(at(time, 0) > bound).toBe(true);
    expect(idTime(bound)).toBe(time);
    expect(idTime(at(time + 86_399_999, 7))).toBe(time + 86_399_999);
  });

  it("refuses to read a time out of an id without a ULID", () => {
    expect(() => idTime("evt_test_1700000000000")).toThrow(/ULID time/);
    expect(() => idTime("evt")).toThrow(/ULID time/);
  });
});

describe("newMessageId", () => {
  it("carries the time a message is due: now, or its scheduled time", () => {
    const before = Date.now();
    const now = newMessageId(null);
    expect(idTime(now)).toBeGreaterThanOrEqual(before);
    expect(idTime(now)).toBeLessThanOrEqual(Date.now());
    const due = new Date(Date.UTC(2027, 4, 1, 9, 30));
    const scheduled = newMessageId(due);
    expect(isId("msg", scheduled)).toBe(true);
    expect(idTime(scheduled)).toBe(due.getTime());
    // A time already past is now: such a message is due at once.
    expect(idTime(newMessageId(new Date(before - 60_000)))).toBeGreaterThanOrEqual(before);
  });

  it("does not move the clock of the ids made after a future one", () => {
    newMessageId(new Date(Date.now() + 86_400_000));
    expect(idTime(newId("msg"))).toBeLessThanOrEqual(Date.now());
  });

  it("gives messages due in the same millisecond different ids", () => {
    const due = new Date(Date.now() + 3_600_000);
    const ids = Array.from({ length: 1000 }, () => newMessageId(due));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
