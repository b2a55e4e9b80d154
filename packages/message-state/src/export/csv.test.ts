import fc from "fast-check";
import { csvField, csvRecord, inertText } from "./csv";

/** A strict RFC 4180 reader for one record (no trailing CRLF), to check the writer against. */
function parseRecord(text: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = "";
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error("unterminated quote");
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
          } else {
            i++;
            break;
          }
        } else field += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== ",") {
        if (/["\r\n]/.test(text[i]!)) throw new Error(`bare ${JSON.stringify(text[i])} in an unquoted field`);
        field += text[i++];
      }
    }
    fields.push(field);
    if (i >= text.length) return fields;
    if (text[i] !== ",") throw new Error(`expected a comma at ${i}`);
    i++;
  }
}

describe("csv", () => {
  it("quotes only what needs it, doubling quotes", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField("")).toBe("");
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("two\nlines")).toBe('"two\nlines"');
    expect(csvField("cr\rhere")).toBe('"cr\rhere"');
    expect(csvRecord(["a", "b,c", ""])).toBe('a,"b,c",\r\n');
  });

  it("reads back as the same fields, whatever the text", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary" }), { minLength: 1, maxLength: 6 }), (fields) => {
        const record = csvRecord(fields);
        expect(record.endsWith("\r\n")).toBe(true);
        expect(parseRecord(record.slice(0, -2))).toEqual(fields);
      }),
    );
  });

  it("makes text that starts like a formula inert, and leaves other text alone", () => {
    for (const formula of ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\t=1", "\r=1"])
      expect(inertText(formula)).toBe(`'${formula}`);
    for (const text of ["hello", "a=b", "1+1", "'quoted", "", " =spaced"]) expect(inertText(text)).toBe(text);
    expect(csvRecord([inertText('=HYPERLINK("http://x","y")')])).toBe(
      `"'=HYPERLINK(""http://x"",""y"")"\r\n`,
    );
  });
});
