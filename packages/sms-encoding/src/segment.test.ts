import { analyzeText, splitMessage } from "./segment";
import { decodeUcs2 } from "./ucs2";

const ARABIC_200 = "مرحبا بالعالم ".repeat(15).slice(0, 200);

describe("analyzeText", () => {
  it("sends plain ASCII as one GSM-7 part", () => {
    expect(analyzeText("Hello world")).toEqual({
      encoding: "GSM-7",
      segments: 1,
      units: 11,
      unitsPerSegment: 160,
    });
  });

  it("treats the empty text as one GSM-7 part of 0 units", () => {
    expect(analyzeText("")).toEqual({ encoding: "GSM-7", segments: 1, units: 0, unitsPerSegment: 160 });
  });

  it("fits exactly 160 GSM characters in one part and needs two for 161", () => {
    expect(analyzeText("a".repeat(160))).toMatchObject({ segments: 1, units: 160 });
    expect(analyzeText("a".repeat(161))).toEqual({
      encoding: "GSM-7",
      segments: 2,
      units: 161,
      unitsPerSegment: 153,
    });
  });

  it("counts each extension character as 2 septets", () => {
    expect(analyzeText("€[]{}\\^~|")).toMatchObject({ encoding: "GSM-7", units: 18, segments: 1 });
    expect(analyzeText("€".repeat(80))).toMatchObject({ units: 160, segments: 1 });
    expect(analyzeText("€".repeat(81))).toMatchObject({ units: 162, segments: 2 });
  });

  it("keeps the Greek capitals of the GSM table in GSM-7", () => {
    expect(analyzeText("ΔΦΓΛΩΠΨΣΘΞ")).toMatchObject({ encoding: "GSM-7", units: 10 });
  });

  it("sends Arabic as UCS-2", () => {
    expect(analyzeText("مرحبا بالعالم")).toEqual({
      encoding: "UCS-2",
      segments: 1,
      units: 13,
      unitsPerSegment: 70,
    });
    expect(analyzeText(ARABIC_200)).toEqual({
      encoding: "UCS-2",
      segments: 3,
      units: 200,
      unitsPerSegment: 67,
    });
  });

  it("fits exactly 70 UCS-2 units in one part and needs two for 71", () => {
    expect(analyzeText("ж".repeat(70))).toMatchObject({ segments: 1 });
    expect(analyzeText("ж".repeat(71))).toMatchObject({ segments: 2 });
  });

  it("switches a whole Latin text to UCS-2 for one emoji, counting it as 2 units", () => {
    expect(analyzeText("Hi 👋 there")).toEqual({
      encoding: "UCS-2",
      segments: 1,
      units: 11,
      unitsPerSegment: 70,
    });
  });

  it("counts the part an extension character pushes over a boundary", () => {
    // 152 + 2 + 152 = 306 septets: ceil(306/153) = 2 by formula, but the € cannot split, so 3.
    expect(analyzeText(`${"a".repeat(152)}€${"b".repeat(152)}`)).toMatchObject({ units: 306, segments: 3 });
  });

  it("counts the part an emoji pushes over a boundary", () => {
    // 66 + 2 + 66 = 134 units: 2 parts of 67 by formula, but the pair cannot split, so 3.
    expect(analyzeText(`${"ж".repeat(66)}😀${"ж".repeat(66)}`)).toMatchObject({ units: 134, segments: 3 });
  });

  it("reaches the documented limit of 10 parts at 1530 GSM-7 or 670 UCS-2 characters", () => {
    expect(analyzeText("a".repeat(1530)).segments).toBe(10);
    expect(analyzeText("a".repeat(1531)).segments).toBe(11);
    expect(analyzeText("ж".repeat(670)).segments).toBe(10);
    expect(analyzeText("ж".repeat(671)).segments).toBe(11);
  });
});

describe("splitMessage", () => {
  it("sends one part without UDH", () => {
    const [part, ...rest] = splitMessage("Hello @ $", { reference: 1 });
    expect(rest).toEqual([]);
    expect(part).toMatchObject({ dataCoding: 0x00, udh: null, text: "Hello @ $" });
    expect(part?.payload.toString("hex")).toBe("48656c6c6f20002002");
    expect(part?.shortMessage).toEqual(part?.payload);
  });

  it("sends an empty text as one empty part", () => {
    expect(splitMessage("", { reference: 0 })).toEqual([
      { dataCoding: 0x00, udh: null, payload: Buffer.alloc(0), shortMessage: Buffer.alloc(0), text: "" },
    ]);
  });

  it("splits 161 GSM characters into 153 + 8 with concatenation UDHs", () => {
    const parts = splitMessage("a".repeat(161), { reference: 0x2a });
    expect(parts.map((p) => p.payload.length)).toEqual([153, 8]);
    expect(parts.map((p) => p.udh?.toString("hex"))).toEqual(["0500032a0201", "0500032a0202"]);
    expect(parts[1]?.shortMessage.toString("hex")).toBe(`0500032a0202${"61".repeat(8)}`);
  });

  it("moves an extension character at the 153-septet boundary whole into the next part", () => {
    const parts = splitMessage(`${"a".repeat(152)}€${"b".repeat(10)}`, { reference: 1 });
    expect(parts.map((p) => p.text)).toEqual(["a".repeat(152), `€${"b".repeat(10)}`]);
    expect(parts[0]?.payload.at(-1)).toBe(0x61);
    expect([...(parts[1]?.payload.subarray(0, 2) ?? [])]).toEqual([0x1b, 0x65]);
  });

  it("keeps an extension character that ends exactly at 153 septets in the first part", () => {
    const parts = splitMessage(`${"a".repeat(151)}€${"b".repeat(10)}`, { reference: 1 });
    expect(parts.map((p) => p.payload.length)).toEqual([153, 10]);
    expect(parts[0]?.text.endsWith("€")).toBe(true);
  });

  it("sends Arabic as UCS-2 big-endian", () => {
    const [part] = splitMessage("مرحبا بالعالم", { reference: 1 });
    expect(part?.dataCoding).toBe(0x08);
    expect(part?.payload.subarray(0, 4).toString("hex")).toBe("06450631");
    expect(part?.payload.length).toBe(26);
  });

  it("splits a 200-character Arabic text into 67 + 67 + 66 units", () => {
    const parts = splitMessage(ARABIC_200, { reference: 9 });
    expect(parts.map((p) => p.payload.length / 2)).toEqual([67, 67, 66]);
    expect(parts.map((p) => decodeUcs2(p.payload)).join("")).toBe(ARABIC_200);
    expect(parts.every((p) => (p.udh?.length ?? 0) + p.payload.length <= 140)).toBe(true);
  });

  it("moves an emoji straddling the 67-unit boundary whole into the next part", () => {
    const text = `${"a".repeat(66)}😀${"b".repeat(10)}`;
    const parts = splitMessage(text, { reference: 3 });
    expect(parts.map((p) => p.text)).toEqual(["a".repeat(66), `😀${"b".repeat(10)}`]);
    expect(parts[1]?.payload.subarray(0, 4).toString("hex")).toBe("d83dde00");
  });

  it("re-joins mixed Latin and emoji parts to the original", () => {
    const text = "Your order 👍 has shipped 🚚📦 — track it at example.com/t/ABC123. Thanks! 🙏 ".repeat(3);
    const parts = splitMessage(text, { reference: 5 });
    expect(parts.length).toBe(analyzeText(text).segments);
    expect(parts.map((p) => decodeUcs2(p.payload)).join("")).toBe(text);
  });

  it("rejects a reference outside 0–255", () => {
    expect(() => splitMessage("hi", { reference: 256 })).toThrow(RangeError);
    expect(() => splitMessage("hi", { reference: -1 })).toThrow(RangeError);
  });

  it("refuses more than 255 parts, which the UDH cannot count", () => {
    expect(() => splitMessage("a".repeat(153 * 255 + 1), { reference: 1 })).toThrow(/255 parts/);
    expect(splitMessage("a".repeat(153 * 255), { reference: 1 })).toHaveLength(255);
  });
});
