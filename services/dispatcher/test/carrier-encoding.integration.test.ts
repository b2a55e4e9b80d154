import { waitFor } from "@sms/testing";
import { startDispatchWorld, type DispatchWorld } from "./harness";

/**
 * Over real SMPP: what a carrier takes for data_coding 0 (carriers.gsm7_encoding)
 * is what it gets, and the simulator, reading data_coding 0 the same way, records the text sent.
 */
let w: DispatchWorld;

beforeAll(async () => {
  w = await startDispatchWorld();
});
afterAll(async () => {
  await w?.stop();
});

async function useEncoding(encoding: "unpacked" | "packed" | "latin1") {
  await w.db.pool.query("UPDATE carriers SET gsm7_encoding = $1", [encoding]);
  await waitFor(() => w.dispatcher.carriers.candidates("+447705000000")[0]?.gsm7Encoding === encoding, {
    what: `the dispatcher to read gsm7_encoding ${encoding}`,
  });
  w.simulator.update({
    dataCoding0: encoding === "unpacked" ? "gsm7" : encoding === "packed" ? "gsm7-packed" : "latin1",
  });
}

/** Sends `text` to a fresh number and answers what the carrier received, parts in order. */
async function sendAndRead(to: string, text: string) {
  const { id } = await w.send(to, text);
  await w.waitForStatus(id, ["sent", "delivered", "failed"]);
  const parts = w.simulator
    .messages({ to: to.replace(/^\+/, "") })
    .sort((a, b) => (a.segment?.index ?? 1) - (b.segment?.index ?? 1));
  return { id, parts, text: parts.map((p) => p.text).join("") };
}

const TEXT = "@£_ {ok} Ünö é GSM ~ 1234567";

it.each([
  ["unpacked", "+447705101231", "00011120"],
  ["packed", "+447705101232", "804004"],
  ["latin1", "+447705101233", "40a35f20"],
] as const)(
  "%s: the carrier gets its own form of data_coding 0 and reads the text as sent",
  async (encoding, to, prefix) => {
    await useEncoding(encoding);
    const { parts, text } = await sendAndRead(to, TEXT);
    expect(text).toBe(TEXT);
    expect(parts).toHaveLength(1);
    expect(parts[0]!.dataCoding).toBe(0);
    expect(parts[0]!.rawHex.startsWith(prefix)).toBe(true);
  },
);

it("packed: a concatenated message's parts keep their UDH and the septets start after its fill bit", async () => {
  await useEncoding("packed");
  const long = "Packed parts, @£_ and {braces}, ".repeat(8);
  const { parts, text } = await sendAndRead("+447705101234", long);
  expect(parts).toHaveLength(2);
  expect(text).toBe(long);
});

it("latin1: a text with Greek capitals or € is failed ENCODING_UNSUPPORTED, not sent wrong", async () => {
  await useEncoding("latin1");
  const { id } = await w.send("+447705101235", "Δ costs 5 €");
  expect(await w.waitForStatus(id, ["failed", "sent", "delivered"])).toBe("failed");
  const { rows } = await w.db.pool.query("SELECT error_code FROM messages WHERE id = $1", [id]);
  expect(rows[0].error_code).toBe("ENCODING_UNSUPPORTED");
  expect(w.simulator.messages({ to: "447705101235" })).toHaveLength(0);
  await useEncoding("unpacked");
});
