import { bodyLayoutProblem } from "./body-layout";
import { encodePdu } from "./codec";

const submit = (fields: Record<string, unknown> = {}) =>
  encodePdu("submit_sm", 7, {
    source_addr: "ACME",
    destination_addr: "447911123456",
    data_coding: 0,
    short_message: Buffer.from("hello"),
    ...fields,
  });

/** A frame with its command_length set to its real length. */
function frame(header: Buffer, body: Buffer): Buffer {
  const out = Buffer.concat([header.subarray(0, 16), body]);
  out.writeUInt32BE(out.length, 0);
  return out;
}

describe("bodyLayoutProblem", () => {
  it("passes what our encoder writes, TLVs included", () => {
    expect(bodyLayoutProblem(submit(), "submit_sm")).toBeUndefined();
    expect(
      bodyLayoutProblem(
        submit({ sar_msg_ref_num: 1, sar_total_segments: 2, sar_segment_seqnum: 1 }),
        "submit_sm",
      ),
    ).toBeUndefined();
    expect(bodyLayoutProblem(encodePdu("enquire_link", 1), "enquire_link")).toBeUndefined();
    expect(
      bodyLayoutProblem(
        encodePdu("bind_transceiver", 1, { system_id: "a", password: "b", interface_version: 0x34 }),
        "bind_transceiver",
      ),
    ).toBeUndefined();
  });

  it("finds a 3-octet submit_sm body", () => {
    expect(bodyLayoutProblem(frame(submit(), Buffer.from([0, 1, 1])), "submit_sm")).toMatch(
      /without its NULL|ends/,
    );
  });

  it("finds sm_length 255 followed by 300 octets (45 would have been read as TLVs)", () => {
    const good = submit({ short_message: Buffer.alloc(0) });
    const body = Buffer.concat([
      good.subarray(16, good.length - 1),
      Buffer.from([255]),
      Buffer.alloc(300, 0x41),
    ]);
    expect(bodyLayoutProblem(frame(good, body), "submit_sm")).toMatch(/TLV|after/);
  });

  it("finds a short_message shorter than its sm_length", () => {
    const good = submit({ short_message: Buffer.alloc(0) });
    const body = Buffer.concat([good.subarray(16, good.length - 1), Buffer.from([10]), Buffer.from("abc")]);
    expect(bodyLayoutProblem(frame(good, body), "submit_sm")).toMatch(/ends inside/);
  });

  it("finds octets after a body that takes no TLVs", () => {
    const link = encodePdu("enquire_link", 1);
    expect(bodyLayoutProblem(frame(link, Buffer.from([1, 2])), "enquire_link")).toMatch(/2 octets after/);
  });

  it("leaves commands it has no layout for alone", () => {
    expect(bodyLayoutProblem(Buffer.alloc(20), "outbind")).toBeUndefined();
  });
});
