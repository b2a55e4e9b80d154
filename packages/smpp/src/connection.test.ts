import { once } from "node:events";
import net from "node:net";
import { waitFor } from "@sms/testing";
import { SmppConnection } from "./connection";
import { ConnectionLostError } from "./errors";

describe("SmppConnection", () => {
  it("stops writing new requests while the socket waits for 'drain'", async () => {
    let peer: net.Socket | undefined;
    const server = net.createServer((socket) => {
      peer = socket;
      socket.pause(); // a peer that stops reading: the kernel buffers fill, then socket.write() returns false
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const socket = net.connect({ host: "127.0.0.1", port: (server.address() as net.AddressInfo).port });
    await once(socket, "connect");
    const connection = new SmppConnection(socket, {
      windowSize: 1_000_000,
      responseTimeoutMs: 60000,
      onRequest: () => undefined,
      onClose: () => undefined,
    });
    const total = 60000;
    const segment = {
      source_addr: "ACME",
      destination_addr: "+447700900123",
      data_coding: 0,
      short_message: Buffer.alloc(200, 0x41),
    };
    const requests = Array.from({ length: total }, () =>
      connection.request("submit_sm", segment).catch((error: unknown) => error),
    );
    try {
      await waitFor(() => socket.writableNeedDrain, { what: "write backpressure" });
      let maxQueued = 0;
      for (let turn = 0; turn < 50; turn++) {
        await new Promise((resolve) => setImmediate(resolve));
        maxQueued = Math.max(maxQueued, socket.writableLength);
      }
      expect(maxQueued).toBeLessThan(socket.writableHighWaterMark + 1024);
      expect(connection.window.outstanding).toBeLessThan(total);

      peer!.resume();
      await waitFor(() => connection.window.outstanding === total, {
        what: "every request written after drain",
        timeoutMs: 30000,
      });
    } finally {
      connection.destroy("test over");
      peer?.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
    const outcomes = await Promise.all(requests);
    expect(outcomes.every((outcome) => outcome instanceof ConnectionLostError)).toBe(true);
  });
});
