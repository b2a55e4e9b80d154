import net from "node:net";
import { waitFor } from "@sms/testing";
import { RawPeer } from "../test/raw-peer";
import { startTestServer, type TestServer } from "../test/test-server";
import { encodePdu } from "./codec";
import { CommandStatus } from "./status";

const bindFields = { system_id: "acme", password: "secret", interface_version: 0x34 };
const submitFields = {
  source_addr: "ACME",
  destination_addr: "+447700900123",
  data_coding: 0,
  short_message: Buffer.from("hi"),
};

describe("SmppServerSession backpressure", () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("handles at most maxPendingRequests of the peer's requests at once, then stops reading until one is answered", async () => {
    let handling = 0;
    let maxHandling = 0;
    const release: Array<() => void> = [];
    server = await startTestServer({
      inactivityTimeoutMs: 0,
      maxPendingRequests: 5,
      onRequest: async () => {
        maxHandling = Math.max(maxHandling, ++handling);
        await new Promise<void>((resolve) => release.push(resolve));
        handling -= 1;
        return { fields: { message_id: "x" } };
      },
    });
    const peer = await RawPeer.connect(server.port);
    expect((await peer.request("bind_transmitter", bindFields)).command_status).toBe(CommandStatus.ESME_ROK);
    for (let i = 0; i < 50; i++) peer.send("submit_sm", submitFields);
    await waitFor(() => handling === 5, { what: "five submits in the handler" });
    expect(server.sessions[0]!.isReadingHeld).toBe(true);
    // A round of the event loop later, still five: the rest wait in TCP, not in our memory.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(handling).toBe(5);
    while (peer.received.filter((pdu) => pdu.command === "submit_sm_resp").length < 50) {
      release.splice(0).forEach((resolve) => resolve());
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(maxHandling).toBe(5);
    peer.close();
  });

  it("stops reading while a peer that does not read our responses blocks our writes", async () => {
    // Long message ids (64 characters, the most a C-octet string of 65 holds) fill the
    // kernel's buffers on both sides (megabytes on loopback) with four times fewer submits.
    const longId = "x".repeat(64);
    server = await startTestServer({
      inactivityTimeoutMs: 0,
      onRequest: () => ({ fields: { message_id: longId } }),
    });
    const socket = net.connect({ host: "127.0.0.1", port: server.port });
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.on("error", () => undefined);
    socket.write(encodePdu("bind_transmitter", 1, bindFields));
    socket.pause(); // never reads what the server writes
    const frame = encodePdu("submit_sm", 2, { ...submitFields, short_message: Buffer.alloc(200, 0x41) });
    const pump = setInterval(() => {
      for (let i = 0; i < 200 && socket.writableLength < 1 << 20; i++) {
        socket.write(frame);
      }
    }, 1);
    try {
      // Seconds on a quiet machine (the server decodes every submit until the buffers are
      // full); a CI machine running other suites needs more.
      await waitFor(() => server!.sessions[0]?.isReadingHeld, {
        what: "the server to stop reading",
        timeoutMs: 45_000,
      });
      const session = server.sessions[0]!;
      // Our side stays bounded: the peer's bytes wait in its own socket buffer. Its write()
      // returns false and queues in user space only once the kernel refuses more (TCP pushback).
      await waitFor(() => socket.writableNeedDrain && socket.writableLength > 0, {
        what: "the peer's writes to be pushed back",
        timeoutMs: 45_000,
      });
      expect(session.isReadingHeld).toBe(true);
      expect(session.pending).toBe(0);
    } finally {
      clearInterval(pump);
      socket.destroy();
    }
  }, 90_000);
});

describe("SmppServerSession close", () => {
  it("answers the requests being handled before it unbinds", async () => {
    let release: () => void = () => undefined;
    const server = await startTestServer({
      inactivityTimeoutMs: 0,
      onRequest: async () => {
        await new Promise<void>((resolve) => (release = resolve));
        return { fields: { message_id: "late" } };
      },
    });
    const peer = await RawPeer.connect(server.port);
    try {
      expect((await peer.request("bind_transceiver", bindFields)).command_status).toBe(
        CommandStatus.ESME_ROK,
      );
      const sequence = peer.send("submit_sm", submitFields);
      await waitFor(() => server.sessions[0]!.pending === 1, { what: "the submit in its handler" });
      const closing = server.sessions[0]!.close("shutting down");
      // A request arriving now is refused at once; the one in the handler still gets its answer.
      expect((await peer.request("submit_sm", submitFields)).command_status).toBe(
        CommandStatus.ESME_RINVBNDSTS,
      );
      expect(peer.received.some((pdu) => pdu.command === "unbind")).toBe(false);
      release();
      const answer = await peer.next((pdu) => pdu.sequence_number === sequence, "the submit's answer");
      expect(answer).toMatchObject({ command: "submit_sm_resp", command_status: 0, message_id: "late" });
      const unbind = await peer.next((pdu) => pdu.command === "unbind", "unbind after the answer");
      peer.send("unbind_resp", {}, unbind.sequence_number);
      await closing;
    } finally {
      peer.close();
      await server.close();
    }
  });
});
