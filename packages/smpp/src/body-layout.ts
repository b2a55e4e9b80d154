/**
 * The body layouts of SMPP 3.4 §4 for the PDUs a peer sends us, checked octet by octet: the
 * `smpp` codec reads past the end of a short body (a 3-octet submit_sm came out as empty fields,
 * then ESME_RINVDSTADR) and reads whatever follows short_message as TLVs (sm_length 255 before
 * 300 octets lost 45 of them). A body that does not fit its layout exactly is generic_nack
 * ESME_RINVCMDLEN (§3.3).
 */
type Field = "c" | 1 | 4 | "sm";

const SUBMIT: readonly Field[] = ["c", 1, 1, "c", 1, 1, "c", 1, 1, 1, "c", "c", 1, 1, 1, 1, "sm"];
const BIND: readonly Field[] = ["c", "c", "c", 1, 1, 1, "c"];

/** Mandatory fields per command; then TLVs (tag, length, value) to the end, where the spec allows them. */
const LAYOUTS: Record<string, { fields: readonly Field[]; tlvs: boolean }> = {
  submit_sm: { fields: SUBMIT, tlvs: true },
  deliver_sm: { fields: SUBMIT, tlvs: true },
  data_sm: { fields: ["c", 1, 1, "c", 1, 1, "c", 1, 1, 1], tlvs: true },
  query_sm: { fields: ["c", 1, 1, "c"], tlvs: false },
  cancel_sm: { fields: ["c", "c", 1, 1, "c", 1, 1, "c"], tlvs: false },
  bind_transmitter: { fields: BIND, tlvs: false },
  bind_receiver: { fields: BIND, tlvs: false },
  bind_transceiver: { fields: BIND, tlvs: false },
  enquire_link: { fields: [], tlvs: false },
  enquire_link_resp: { fields: [], tlvs: false },
  unbind: { fields: [], tlvs: false },
  unbind_resp: { fields: [], tlvs: false },
  generic_nack: { fields: [], tlvs: false },
};

/** Why `frame` (header included) does not fit its command's layout, or undefined when it does or is not checked. */
export function bodyLayoutProblem(frame: Buffer, command: string): string | undefined {
  const layout = LAYOUTS[command];
  if (!layout) return undefined;
  let offset = 16;
  for (const [index, field] of layout.fields.entries()) {
    if (field === "c") {
      const end = frame.indexOf(0, offset);
      if (end < 0) return `${command} field ${index + 1}: a C-octet string without its NULL before the end`;
      offset = end + 1;
    } else if (field === "sm") {
      if (offset >= frame.length) return `${command}: the body ends before sm_length`;
      offset += 1 + frame[offset]!;
    } else {
      offset += field;
    }
    if (offset > frame.length) return `${command} field ${index + 1}: the body ends inside it`;
  }
  if (!layout.tlvs)
    return offset === frame.length
      ? undefined
      : `${command}: ${frame.length - offset} octets after the last field`;
  while (offset < frame.length) {
    if (frame.length - offset < 4) return `${command}: ${frame.length - offset} octets after the last TLV`;
    const length = frame.readUInt16BE(offset + 2);
    offset += 4 + length;
    if (offset > frame.length) return `${command}: a TLV of ${length} octets runs past the end`;
  }
  return undefined;
}
