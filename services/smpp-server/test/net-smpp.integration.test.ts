import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
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

function runCustomer(mode: string, onLine: (line: string) => void): Promise<number> {
  const child = spawn("perl", [
    script,
    "127.0.0.1",
    String(h.server.smppPort),
    customer.systemId,
    customer.password,
    mode,
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
});
