import fc from "fast-check";
import { decodeCursor, DEFAULT_PAGE_SIZE, encodeCursor, MAX_PAGE_SIZE, pageSize, toPage } from "./pagination";

const anyId = () => true;

describe("keyset cursors", () => {
  it("round-trip a row's time and id", () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), fc.string({ maxLength: 60 }), (at, id) => {
        expect(decodeCursor(encodeCursor({ at, id }), anyId)).toEqual({ at, id });
      }),
    );
  });

  it("ignore anything we did not produce instead of throwing", () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const cursor = decodeCursor(value, (id) => id.startsWith("msg_"));
        if (cursor) expect(cursor.id.startsWith("msg_")).toBe(true);
      }),
    );
    for (const value of [
      "",
      "!!!",
      "W10",
      Buffer.from('["x","msg_1"]').toString("base64url"),
      "a".repeat(201),
    ])
      expect(decodeCursor(value, anyId)).toBeUndefined();
  });

  it("refuse an id of the wrong kind (a hand-edited link)", () => {
    const cursor = encodeCursor({ at: new Date(), id: "otp_1" });
    expect(decodeCursor(cursor, (id) => id.startsWith("msg_"))).toBeUndefined();
  });
});

describe("pageSize", () => {
  it("accepts 1..MAX_PAGE_SIZE and falls back to the default for anything else", () => {
    expect(pageSize("1")).toBe(1);
    expect(pageSize(String(MAX_PAGE_SIZE))).toBe(MAX_PAGE_SIZE);
    for (const value of [undefined, "", "0", "101", "1e3", "-5", "10.5", ["5"], "9999"])
      expect(pageSize(value)).toBe(DEFAULT_PAGE_SIZE);
  });
});

describe("toPage", () => {
  const rows = [3, 2, 1].map((n) => ({ id: `msg_${n}`, at: new Date(n * 1000) }));
  const cursorOf = (row: (typeof rows)[number]) => row;

  it("returns `size` rows and a cursor of the last one when one more row came back", () => {
    const page = toPage(rows, 2, cursorOf);
    expect(page.rows.map((r) => r.id)).toEqual(["msg_3", "msg_2"]);
    expect(decodeCursor(page.next, anyId)).toEqual({ id: "msg_2", at: new Date(2000) });
  });

  it("has no next page when the rows fit", () => {
    expect(toPage(rows, 3, cursorOf).next).toBeNull();
    expect(toPage([], 3, cursorOf)).toEqual({ rows: [], next: null });
  });
});
