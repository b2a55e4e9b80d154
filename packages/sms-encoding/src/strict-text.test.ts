import { encodeGsm7 } from "./gsm7";
import { checkText, InvalidTextError } from "./strict-text";
import { encodeUcs2 } from "./ucs2";

const bytes = (...values: number[]) => Uint8Array.from(values);

describe("checkText", () => {
  it("passes valid text in every data_coding", () => {
    expect(() => checkText(encodeGsm7("ok [€] @£_"), 0x00)).not.toThrow();
    expect(() => checkText(Buffer.from("ok $", "ascii"), 0x01)).not.toThrow();
    expect(() => checkText(bytes(0xe9, 0xff), 0x03)).not.toThrow();
    expect(() => checkText(encodeUcs2("ok 😀 مرحبا"), 0x08)).not.toThrow();
  });

  it.each([
    ["GSM-7 octet 0x80", bytes(0x6f, 0x6b, 0x80), 0x00],
    ["GSM-7 octet 0xFF", bytes(0x6f, 0x6b, 0xff), 0x00],
    ["a lone trailing escape", bytes(0x6f, 0x6b, 0x1b), 0x00],
    ["an escape before no extension character", bytes(0x1b, 0x41), 0x00],
    ["IA5 with the top bit", bytes(0x6f, 0xe9), 0x01],
    ["UCS-2 of odd length", bytes(0x00, 0x6f, 0x00), 0x08],
    ["a lone high surrogate", bytes(0x00, 0x6f, 0xd8, 0x3d), 0x08],
    ["a high surrogate before a non-surrogate", bytes(0xd8, 0x3d, 0x00, 0x6f), 0x08],
    ["a lone low surrogate", bytes(0xde, 0x00, 0x00, 0x6f), 0x08],
  ])("refuses %s", (_, octets, dataCoding) => {
    expect(() => checkText(octets, dataCoding)).toThrow(InvalidTextError);
  });
});
