import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { encodeGsm7, encodeUcs2 } from "@sms/sms-encoding";
import { SmppClient } from "@sms/smpp";
import { waitFor } from "@sms/testing";
import { startHarness, type Harness } from "./harness";

/** The few calls of the `smpp` package's own Session this test uses (our declaration covers only its codec). */
interface RawSession {
  on(event: string, listener: (pdu: RawPdu) => void): void;
  bind_transceiver(fields: Record<string, unknown>, callback: (pdu: RawPdu) => void): void;
  submit_sm(fields: Record<string, unknown>, callback: (pdu: RawPdu) => void): void;
  send(pdu: unknown): void;
  close(): void;
}
interface RawPdu {
  command_status: number;
  message_id?: string;
  receipted_message_id?: string;
  esm_class?: number;
  response(): unknown;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const smppPackage = require("smpp") as { connect(options: { url: string }): RawSession };

describe("the smpp package's own Session as the customer", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.close());

  it("binds, submits Arabic UCS-2 bytes, and acknowledges its receipt", async () => {
    const customer = await h.addCustomer();
    const session = smppPackage.connect({ url: `smpp://127.0.0.1:${h.server.smppPort}` });
    session.on("error", () => undefined);
    const receipts: RawPdu[] = [];
    session.on("deliver_sm", (pdu) => {
      receipts.push(pdu);
      session.send(pdu.response());
    });
    try {
      const bind = await new Promise<RawPdu>((resolve) =>
        session.bind_transceiver(
          { system_id: customer.systemId, password: customer.password, interface_version: 0x34 },
          resolve,
        ),
      );
      expect(bind.command_status).toBe(0);
      // Buffers and an explicit data_coding: the package's own text encoding guesses (docs/smpp.md#the-smpp-package).
      const submitted = await new Promise<RawPdu>((resolve) =>
        session.submit_sm(
          {
            source_addr: "ACME",
            destination_addr: "966501234567",
            dest_addr_ton: 1,
            registered_delivery: 1,
            data_coding: 8,
            short_message: encodeUcs2("رسالة من عميل"),
          },
          resolve,
        ),
      );
      expect(submitted.command_status).toBe(0);
      const id = submitted.message_id!;
      expect(await h.message(id)).toMatchObject({ body: "رسالة من عميل", to_number: "+966501234567" });
      await h.enqueueReceipt({
        accountId: customer.accountId,
        messageId: id,
        status: "delivered",
        errorCode: null,
      });
      await waitFor(() => receipts.length === 1, { what: "the receipt" });
      expect(receipts[0]).toMatchObject({ receipted_message_id: id, esm_class: 4 });
      await waitFor(
        async () =>
          (await h.pool.query("SELECT count(*)::int AS n FROM smpp_receipts WHERE submit_id = $1", [id]))
            .rows[0].n === 0,
        { what: "the acknowledged receipt deleted" },
      );
    } finally {
      session.close();
    }
  });
});

function makeCertificate(): { dir: string; key: string; cert: string } | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "smpp-server-tls-"));
  try {
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost"]
        .concat(["-addext", "subjectAltName=DNS:localhost"])
        .concat(["-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem")]),
      { stdio: "ignore" },
    );
    return { dir, key: path.join(dir, "key.pem"), cert: path.join(dir, "cert.pem") };
  } catch {
    return undefined;
  }
}
const certificate = makeCertificate();
const describeWithOpenssl = certificate ? describe : describe.skip;

describeWithOpenssl("the TLS listener", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      SMPP_TLS_PORT: "0",
      SMPP_TLS_CERT_FILE: certificate!.cert,
      SMPP_TLS_KEY_FILE: certificate!.key,
    });
  });
  afterAll(async () => {
    await h?.close();
    fs.rmSync(certificate!.dir, { recursive: true, force: true });
  });

  it("binds and accepts submit_sm over TLS with a verified certificate", async () => {
    const customer = await h.addCustomer();
    expect(h.server.tlsPort).toEqual(expect.any(Number));
    const client = new SmppClient({
      host: "127.0.0.1",
      port: h.server.tlsPort!,
      systemId: customer.systemId,
      password: customer.password,
      reconnect: false,
      enquireLinkIntervalMs: 0,
      tls: { ca: fs.readFileSync(certificate!.cert), servername: "localhost" },
    });
    try {
      await client.connect();
      const response = await client.submit({
        source_addr: "ACME",
        destination_addr: "447911123456",
        dest_addr_ton: 1,
        data_coding: 0,
        short_message: Buffer.from(encodeGsm7("over TLS")),
      });
      expect(response.command_status).toBe(0);
      expect(await h.message(response.message_id!)).toMatchObject({ body: "over TLS" });
    } finally {
      await client.close();
    }
  });
});
