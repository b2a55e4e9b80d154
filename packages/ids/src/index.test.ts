import { isId, newId } from "./index";

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
