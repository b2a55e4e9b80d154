import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import { SmppClient } from "./client";
import { SmppServerSession } from "./server-session";
import { CommandStatus } from "./status";

function makeCertificate(): { key: string; cert: string } | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "smpp-tls-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost",
        "-keyout",
        path.join(dir, "key.pem"),
        "-out",
        path.join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    return {
      key: fs.readFileSync(path.join(dir, "key.pem"), "utf8"),
      cert: fs.readFileSync(path.join(dir, "cert.pem"), "utf8"),
    };
  } catch {
    return undefined;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const certificate = makeCertificate();
const describeWithOpenssl = certificate ? describe : describe.skip;

describeWithOpenssl("SmppClient over TLS", () => {
  let server: tls.Server;
  let port: number;
  const sessions: SmppServerSession[] = [];

  beforeAll(async () => {
    server = tls.createServer({ key: certificate!.key, cert: certificate!.cert }, (socket) =>
      sessions.push(
        new SmppServerSession(socket, {
          authenticate: () => CommandStatus.ESME_ROK,
          onRequest: () => ({ fields: { message_id: "t1" } }),
        }),
      ),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const session of sessions) session.destroy("test over");
    await new Promise((resolve) => server.close(resolve));
  });

  it("binds and submits when the server certificate verifies", async () => {
    const client = new SmppClient({
      host: "127.0.0.1",
      port,
      systemId: "acme",
      password: "x",
      tls: { ca: certificate!.cert, servername: "localhost" },
    });
    await client.connect();
    const segment = {
      source_addr: "A",
      destination_addr: "1",
      data_coding: 0,
      short_message: Buffer.from("x"),
    };
    expect((await client.submit(segment)).message_id).toBe("t1");
    await client.close();
  });

  it("refuses a server certificate it cannot verify", async () => {
    const client = new SmppClient({
      host: "127.0.0.1",
      port,
      systemId: "acme",
      password: "x",
      tls: { servername: "localhost" },
      reconnect: false,
    });
    await expect(client.connect()).rejects.toThrow(/certificate/);
    await client.close();
  });
});
