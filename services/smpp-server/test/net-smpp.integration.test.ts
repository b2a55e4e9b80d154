import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { readInboundPdu, storeInboundPiece } from "@sms/carrier-receipts";
import { waitFor } from "@sms/testing";
import { startHarness, type Harness, type TestCustomer } from "./harness";

// Net::SMPP is a second SMPP implementation we did not write (apt: libnet-smpp-perl; .ci/run installs it).
const hasNetSmpp = spawnSync("perl", ["-MNet::SMPP", "-e", "1"]).status === 0;
const describeWithNetSmpp = hasNetSmpp ? describe : describe.skip;
const script = path.join(__dirname, "net-smpp-customer.pl");

let h: Harness;
let customer: TestCustomer;

beforeAll(async () => {
  h = await startHarness();
  customer = await h.addCustomer();
});
afterAll(() => h?.close());

function runCustomer(mode: string, onLine: (line: string) => void, ...extra: string[]): Promise<number> {
  const child = spawn("perl", [
    script,
    "127.0.0.1",
    String(h.server.smppPort),
    customer.systemId,
    customer.password,
    mode,
    ...extra,
  ]);
  readline.createInterface({ input: child.stdout }).on("line", onLine);
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += String(chunk)));
  return new Promise((resolve, reject) =>
    child.once("exit", (code) =>
      code === 0 ? resolve(0) : reject(new Error(`perl exited ${code}: ${stderr}`)),
    ),
  );
}

describeWithNetSmpp("a Net::SMPP (Perl) customer", () => {
  it("is refused with ESME_RINVPASWD for a wrong password", async () => {
    const lines: string[] = [];
    await runCustomer("wrong-password", (line) => lines.push(line));
    expect(lines).toEqual(["bind_status 14"]);
  });

  it("binds, submits GSM and Arabic UCS-2 text, gets a receipt for each under our ids, and unbinds", async () => {
    const lines: string[] = [];
    const submitted: string[] = [];
    const done = runCustomer("session", (line) => {
      lines.push(line);
      const [kind, status, id] = line.split(" ");
      if (kind === "submitted" && status === "0" && id) submitted.push(id);
    });
    await waitFor(() => submitted.length === 2, { what: "two submits from Perl" });
    expect((await h.message(submitted[0]!))?.body).toBe("Hello from Net::SMPP");
    expect((await h.message(submitted[1]!))?.body).toBe("مرحبا");
    for (const id of submitted)
      await h.enqueueReceipt({
        accountId: customer.accountId,
        messageId: id,
        status: "delivered",
        errorCode: null,
      });
    await done;
    // receipted_message_id is a C-Octet String (SMPP 3.4 §5.3.2.12): Net::SMPP keeps its NUL.
    const receipts = lines.filter((line) => line.startsWith("receipt "));
    expect(receipts).toHaveLength(2);
    for (const id of submitted)
      expect(receipts).toContainEqual(
        expect.stringMatching(
          new RegExp(`^receipt ${id}\\u0000? 4 id:${id} sub:001 dlvrd:001 .* stat:DELIVRD err:000`),
        ),
      );
    expect(lines).toContain("bind_status 0");
    expect(lines.at(-1)).toBe("unbind_status 0");
  });

  it("receives a 3-part Arabic inbound message as one reassembled deliver_sm sequence, esm_class 0 with a UDH", async () => {
    await h.pool.query("INSERT INTO inbound_numbers (number, account_id) VALUES ('+14155550166', $1)", [
      customer.accountId,
    ]);
    // 150 UCS-2 characters: three parts of at most 67.
    const text = "شكرا لكم، سأحضر غدا في الموعد المحدد. ".repeat(4).slice(0, 150);
    const lines: string[] = [];
    const done = runCustomer("inbound", (line) => lines.push(line), "3");
    await waitFor(() => lines.includes("bind_status 0"), { what: "the Perl bind" });
    // What dlr-ingest stores from a carrier: the parts arrive out of order.
    const octets = Buffer.from(text, "utf16le").swap16();
    const chunks = [octets.subarray(0, 120), octets.subarray(120, 240), octets.subarray(240)];
    for (const seq of [3, 1, 2])
      await storeInboundPiece(
        h.pool,
        "car_x",
        readInboundPdu({
          source_addr: "447700900123",
          source_addr_ton: 1,
          destination_addr: "14155550166",
          dest_addr_ton: 1,
          esm_class: 0x40,
          data_coding: 8,
          short_message: Buffer.concat([Buffer.from([5, 0, 3, 42, 3, seq]), chunks[seq - 1]!]),
        } as never),
      );
    await done;
    const parts = lines
      .filter((line) => line.startsWith("inbound "))
      .map((line) => line.split(" "))
      .map(([, esm, dc, from, to, hex]) => ({ esm, dc, from, to, octets: Buffer.from(hex!, "hex") }));
    expect(parts).toHaveLength(3);
    for (const part of parts)
      expect(part).toMatchObject({ esm: "64", dc: "8", from: "447700900123", to: "14155550166" });
    const ordered = parts.sort((a, b) => a.octets[5]! - b.octets[5]!);
    expect(ordered.map((p) => [...p.octets.subarray(0, 3), p.octets[4], p.octets[5]])).toEqual([
      [5, 0, 3, 3, 1],
      [5, 0, 3, 3, 2],
      [5, 0, 3, 3, 3],
    ]);
    const joined = Buffer.concat(ordered.map((p) => p.octets.subarray(6)))
      .swap16()
      .toString("utf16le");
    expect(joined).toBe(text);
    expect(lines.at(-1)).toBe("unbind_status 0");
  });
});
